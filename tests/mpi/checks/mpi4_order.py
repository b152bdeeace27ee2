"""MPI-4 persistent collectives started in different orders on different ranks
(tests/mpi/mpi4_known.c persistent_order). MPI-4 pairs their instances by the order of the
inits, and so must the replay: pairing by start order paired each rank's instances with the
other operation on the ranks of the other parity, and the what-if re-timing once hung in
MPI_Finalize on the cycle that made. With mpi4_known.py (rank 1's 60 ms on the path, exact) and
the differential checks."""


def check(run):
    assert "mpi4_known persistent_order done" in run.stdout, "the program did not finish"
    a = run.report["analysis"]
    causes = {x["cause"]: x["count"] for x in a["approximations"]}
    assert "collective_start_order" not in causes, "instances paired by start order: %s" % causes
    assert "What if: no re-timing" not in run.stdout, "the what-if gave up"
    assert a["postprocess_s"] < 20, "post-processing took %.1f s" % a["postprocess_s"]
