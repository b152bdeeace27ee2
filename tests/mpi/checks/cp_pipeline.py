"""A one-sweep pipeline: the path visits every rank, in order."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant


def check(run):
    check_invariant(run)
    segs = load_path(run)
    comp = time_by_rank(segs, "compute")
    for r in range(run.np):
        assert comp.get(r, 0) >= 0.008, "rank %d has %.4f s of compute on the path (expected ~0.01)" % (r, comp.get(r, 0))
    # Ranks appear in sweep order along the path (ignoring the final barrier/finalize part).
    order = []
    for s in segs:
        if s["kind"] == "compute" and s["end"] - s["begin"] > 5e6 and (not order or order[-1] != s["rank"]):
            order.append(s["rank"])
    assert order == list(range(run.np)), "sweep order on the path: %s" % order
