"""Rank 0 waits in MPI_Recv for rank 1, which computes 60 ms first: the path migrates to rank 1
at that message, so rank 1's compute is on the path and rank 0's receive starts where it ends."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant


def check(run):
    check_invariant(run)
    segs = load_path(run)
    comp = time_by_rank(segs, "compute")
    assert comp.get(1, 0) >= 0.05, "rank 1 (the late sender) has only %.4f s of compute on the path" % comp.get(1, 0)
    # Find the hop: a segment on rank 1 immediately followed by an MPI segment on rank 0.
    hops = [(a, b) for a, b in zip(segs, segs[1:]) if a["rank"] == 1 and b["rank"] == 0 and b["kind"] == "mpi"]
    assert hops, "the path never moves from rank 1 to an MPI call on rank 0"
    a, b = hops[0]
    assert b["end"] - b["begin"] < 0.01 * 1e9, "the receive's part on the path should be the transfer only"
    calls = {c["call"] for c in run.report["critical_path"]["by_mpi_call"]}
    assert "MPI_Recv" in calls, calls
