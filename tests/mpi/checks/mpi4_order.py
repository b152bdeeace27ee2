"""MPI-4 persistent collectives started in different orders on different ranks
(tests/mpi/mpi4_known.c persistent_order). MPI-4 pairs their instances by the order of the
inits; the replay pairs them by start order, so here each rank's two instances are paired with
the other operation on the ranks of the other parity. The job must end (the what-if re-timing
once hung in MPI_Finalize on the cycle this made), and the report must name what it could not
pair: the cause collective_start_order for each of those instances, and a what-if table (the
pass did not stall: it keeps their measured partners)."""


def check(run):
    assert "mpi4_known persistent_order done" in run.stdout, "the program did not finish"
    a = run.report["analysis"]
    causes = {x["cause"]: x["count"] for x in a["approximations"]}
    assert causes.get("collective_start_order") == 2 * run.np, \
        "collective_start_order %s, expected %d (2 instances per rank): %s" % (
            causes.get("collective_start_order"), 2 * run.np, causes)
    assert "dependency_cycle" not in causes, causes
    assert not a["exact"]
    assert "[collective_start_order]" in run.stdout
    assert "What if: no re-timing" not in run.stdout, "the what-if gave up"
    assert a["postprocess_s"] < 20, "post-processing took %.1f s" % a["postprocess_s"]
