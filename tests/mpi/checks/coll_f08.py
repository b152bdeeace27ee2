"""Counts, peers and tags recorded for coll_fortran_f08 (use mpi_f08)."""


def check(run):
    n = run.np
    for r in range(n):
        s = set(run.summary(r))
        right, left = (r + 1) % n, (r - 1) % n
        want = [
            "rank %d call MPI_Init count=1 bytes=0" % r,
            "rank %d call MPI_Allreduce count=5 bytes=40" % r,
            "rank %d call MPI_Isend count=1 bytes=8" % r,
            "rank %d call MPI_Irecv count=1 bytes=0" % r,
            "rank %d call MPI_Waitall count=1 bytes=0" % r,
            "rank %d call MPI_Send count=2 bytes=16" % r,
            "rank %d call MPI_Recv count=2 bytes=0" % r,
            "rank %d call MPI_Comm_split count=1 bytes=0" % r,
            "rank %d call MPI_Barrier count=1 bytes=0" % r,
            "rank %d call MPI_Comm_free count=1 bytes=0" % r,
            "rank %d call MPI_Pcontrol count=1 bytes=0" % r,
            "rank %d call MPI_Finalize count=1 bytes=0" % r,
            # wildcard Irecv resolved through Waitall with MPI_STATUSES_IGNORE
            "rank %d recv MPI_Irecv comm=world peer=%d wpeer=%d tag=%d count=1 bytes=0" % (r, left, left, left),
            "rank %d recv MPI_Recv comm=world peer=%d wpeer=%d tag=9 count=1 bytes=0" % (r, left, left),
            "rank %d recv MPI_Recv comm=world peer=%d wpeer=%d tag=10 count=1 bytes=0" % (r, left, left),
            "rank %d send MPI_Isend comm=world peer=%d wpeer=%d tag=%d count=1 bytes=8" % (r, right, right, r),
            "rank %d unresolved unknown_requests=0 never_completed=0" % r,
        ]
        for w in want:
            assert w in s, "rank %d: missing '%s' in:\n%s" % (r, w, "\n".join(sorted(s)))
