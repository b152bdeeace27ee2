"""Everybody waits for rank 1 in a collective on a window or a file (MPI_Win_fence,
MPI_File_write_at_all): the path must take rank 1's 60 ms of compute, and the analysis must be
exact (these collectives are replayed on the communicator the window/file was created on)."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant


def check(run):
    check_invariant(run)
    comp = time_by_rank(load_path(run), "compute")
    assert comp.get(1, 0) >= 0.05, "rank 1's compute on the path is %.4f s (expected ~0.06): %s" % (comp.get(1, 0), comp)
    a = run.report["analysis"]
    assert a["exact"], "analysis approximated: %s" % a["approximations"]
