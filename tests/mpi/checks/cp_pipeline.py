"""A one-sweep pipeline: the path visits every rank that was waited for, in order.

Rank r waits for rank r-1 only if its MPI_Recv began before r-1's MPI_Send did. Normally every
rank's receive is posted long before (the sender first computes 10 ms), but on a loaded machine
a rank can leave MPI_Init that much later (79 ms seen under CI): then the ranks before it were
waited for by nobody and are rightly not on the path. Which ranks must be is read from the
measured order (timeline.json), not assumed."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant


def first_waited(run):
    """The lowest rank from which on every receiver waited for its sender."""
    tl = json.load(open(os.path.join(run.dir, "timeline.json")))
    ev = tl["traceEvents"] if isinstance(tl, dict) else tl
    begin = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "mpi" and e["name"] in ("MPI_Recv", "MPI_Send"):
            begin[(e["pid"], e["name"])] = e["ts"]
    first = 0
    for r in range(1, run.np):
        if not begin[(r, "MPI_Recv")] < begin[(r - 1, "MPI_Send")]:
            first = r  # rank r did not wait: the path cannot reach the ranks before it
    return first


def check(run):
    check_invariant(run)
    segs = load_path(run)
    comp = time_by_rank(segs, "compute")
    first = first_waited(run)
    if first:
        print("note: rank %d posted its receive after rank %d's send began (loaded machine): "
              "the path starts its sweep at rank %d" % (first, first - 1, first))
    for r in range(first, run.np):
        assert comp.get(r, 0) >= 0.008, "rank %d has %.4f s of compute on the path (expected ~0.01)" % (r, comp.get(r, 0))
    # Ranks appear in sweep order along the path (ignoring the final barrier/finalize part).
    order = []
    for s in segs:
        if s["kind"] == "compute" and s["end"] - s["begin"] > 5e6 and (not order or order[-1] != s["rank"]):
            order.append(s["rank"])
    assert order == list(range(first, run.np)), "sweep order on the path: %s (from rank %d)" % (order, first)
