"""stack=N without skip= (tests/mpi/callpath_app.c, control mode): the tool says once that the
option has no effect, and the call sites stay the return addresses (callpath_skip.py checks
those are the library's own lines)."""

NOTE = "stack= has no effect without skip= (call paths are not grouped yet)"


def check(run):
    n = run.stderr.count(NOTE)
    assert n == 1, "expected the note '%s' once on stderr (rank 0), got %d:\n%s" % (NOTE, n, run.stderr[-2000:])
