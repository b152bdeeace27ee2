"""... and a run the plan's old estimate refused (512 bytes per event, three times the measured
peak: halo_bench 20000 at 4 ranks, 102k events per rank, needed 51.8 MiB by it and grows by
about 18 MiB) is analysed within 50 MiB, its what-if in several passes of a few scenarios."""


def check(run):
    rep = run.report
    mb = rep["analysis"]["memory_budget"]
    assert mb["analysed"], "skipped: %s" % mb["note"]
    assert rep["analysis"]["exact"], rep["analysis"]["approximations"]
    assert mb["need_bytes"] <= mb["limit_bytes"], mb
    per = mb["whatif_scenarios_per_pass"]
    assert per is not None and 1 <= per < len(rep["what_if"]), "expected the what-if in several passes: %s" % mb
