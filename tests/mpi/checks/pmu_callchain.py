"""Inclusive time from call chains (tests/mpi/pmu_callchain_app.c, callchain=1): on the critical
path slow_phase (the caller of the slow kernel) ranks above slow_kernel in the inclusive table,
while the flat table has slow_kernel above slow_phase; main, the caller of everything, is at
least as high as slow_phase."""


def rank_of(rows, fn):
    for i, r in enumerate(rows):
        if r["function"] == fn:
            return i, r["cpu_s"]
    return None, 0.0


def check(run):
    hot = run.report["hotspots"]
    incl, flat = hot["inclusive_critical_path"], hot["critical_path_compute"]
    assert incl, "no inclusive table with callchain=1: %s" % list(hot)
    ip, tp = rank_of(incl, "slow_phase")
    ik, tk = rank_of(incl, "slow_kernel")
    assert ip is not None and ik is not None, "slow_phase/slow_kernel missing from the inclusive table: %s" % incl
    assert ip < ik and tp > tk, "inclusive: slow_phase (#%d, %.3f s) should rank above slow_kernel (#%d, %.3f s)" % (
        ip, tp, ik, tk)
    fk, fkt = rank_of(flat, "slow_kernel")
    fp, fpt = rank_of(flat, "slow_phase")
    assert fk is not None and (fp is None or fpt < fkt), "flat: slow_kernel should dominate slow_phase: %s" % flat
    im, tm = rank_of(incl, "main")
    assert im is not None and tm >= tp * 0.95, "main should include slow_phase: %s" % incl
    assert hot["inclusive_all"], "no overall inclusive table"
    assert "Inclusive time on the critical path" in run.stdout, "the text report lacks the inclusive table"
