"""One rank computes 4x longer before each Allreduce: >= 90% of the path's compute is there."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant


def check(run):
    check_invariant(run)
    segs = load_path(run)
    comp = time_by_rank([s for s in segs if s["kind"] == "compute"])
    slow = 2 if run.np > 2 else run.np - 1
    total = sum(comp.values())
    assert total > 0.3, "path compute only %g s" % total
    share = comp.get(slow, 0) / total
    assert share >= 0.9, "only %.1f%% of the path's compute is on rank %d: %s" % (100 * share, slow, comp)
    # The report names the slow rank's compute interval first among compute activities.
    top = [a for a in run.report["critical_path"]["activities"] if a["kind"] == "compute"][0]
    assert top["rank"] == slow and top["kind"] == "compute", "top activity is %s" % top
    assert "compute between MPI_Allreduce" in top["description"], top["description"]
