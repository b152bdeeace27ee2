"""MPI-4 persistent collectives started in different orders on different ranks
(tests/mpi/mpi4_known.c persistent_order): the ranks pair the instances by start order, which
makes a dependency cycle for the what-if re-timing. The job must end (before, it hung in
MPI_Finalize), the re-timing must give up after whatif_stall= seconds, and the report must say
so: the cause dependency_cycle, and the what-if line instead of the table."""


def check(run):
    assert "mpi4_known persistent_order done" in run.stdout, "the program did not finish"
    a = run.report["analysis"]
    causes = {x["cause"]: x["count"] for x in a["approximations"]}
    assert causes.get("dependency_cycle") == 1, "no dependency_cycle among %s" % causes
    assert not a["exact"]
    assert "What if: no re-timing: it waited 3 s" in run.stdout, "the what-if line does not say it gave up"
    # The pass gave up after the 3 s asked for, not at some other limit.
    assert a["postprocess_s"] < 20, "post-processing took %.1f s" % a["postprocess_s"]
