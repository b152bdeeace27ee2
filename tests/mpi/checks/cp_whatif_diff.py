"""What-if on random programs: re-timing with every factor 1 gives the measured run time back
(within the clock-alignment error), and the sequential reference (cpath-ref --whatif) finds
the same run time as the distributed pass for every scenario, to the nanosecond, and the same
new critical path: the same time per (rank, raw activity) and the same number of rank changes."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import rows, results, reference, paths, reference_paths


def check(run):
    rs = rows(run)
    ident = rs[0]
    assert ident["kind"] == "identity", ident
    span = run.report["elapsed_s"]
    err = run.report["analysis"]["clock"]["error_bound_s"] if "clock" in run.report.get("analysis", {}) else 0
    assert abs(ident["run_time_s"] - span) <= err + 2e-9, \
        "identity re-timing %.9f s, measured %.9f s (clock error %g s)" % (ident["run_time_s"], span, err)
    dist = results(run)
    ref = reference(run)
    assert len(dist) == len(rs), "whatif.0.txt has %d results, report %d rows" % (len(dist), len(rs))
    assert dist == ref, "distributed %s, reference %s (scenarios %s)" % (
        dist, ref, [(r["kind"], r["target"]) for r in rs])
    # Sanity of the model on any program: no scenario that only makes things faster is slower.
    for r in rs:
        if r["kind"] in ("network", "startup", "activity", "function") or (r["kind"] == "user" and r["factor"] <= 1):
            assert r["gain_s"] >= -1e-9, "scenario %s made the run longer: %s" % (r["scenario"], r)

    # The new critical path of every scenario, against the reference's own walk.
    changes, acts = paths(run)
    ref_changes, ref_acts = reference_paths(run)
    assert len(changes) == len(rs), "whatif.0.txt has %d path_rank_changes lines, report %d rows" % (len(changes), len(rs))
    assert changes == ref_changes, "rank changes: distributed %s, reference %s" % (changes, ref_changes)
    if acts != ref_acts:
        diff = sorted(set(acts.items()) ^ set(ref_acts.items()))[:10]
        raise AssertionError("new critical paths differ (scenario, rank, activity) -> ns, first: %s" % diff)
    # No activity takes negative time on a new path: where a re-timed polling loop ends before
    # its completing call's new begin, the path goes through the loop, not the call's begin.
    negative = sorted((k, ns) for k, ns in acts.items() if ns < 0)[:5]
    assert not negative, "activities with negative time on new paths (scenario, rank, activity): %s" % negative
    for s, r in enumerate(rs):
        assert r["path_rank_changes"] == changes[s], (r, changes[s])
        # The path runs from the first MPI_Init entry to the new last MPI_Finalize entry.
        total = sum(ns for (sc, _, _), ns in acts.items() if sc == s)
        assert total == dist[s], "scenario %d: new path %d ns, new run time %d ns" % (s, total, dist[s])
        tops = [t["time_s"] for t in r["path_top"]]
        assert tops == sorted(tops, reverse=True) and len(tops) <= 3 and all(t >= -1e-9 for t in tops), r["path_top"]
