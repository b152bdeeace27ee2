"""What-if on random programs: re-timing with every factor 1 gives the measured run time back
(within the clock-alignment error), and the sequential reference (cpath-ref --whatif) finds
the same run time as the distributed pass for every scenario, to the nanosecond."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import rows, results, reference


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
