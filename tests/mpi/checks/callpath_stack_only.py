"""stack=N without skip= (tests/mpi/callpath_app.c, control mode): no frame is skipped, so each
call site is a call path whose innermost frame is the library's line and whose next frame is
the application's line that called the library (marked CALL-SITE); no option warning."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callpath_skip import ARROW, site_lines  # noqa: E402

OLD_NOTE = "stack= has no effect"


def check(run):
    assert OLD_NOTE not in run.stderr, "stack= still said to have no effect:\n%s" % run.stderr[-2000:]
    want = site_lines()
    sites = [s["callsite"] for s in run.report["critical_path"]["by_callsite"]]
    mpi = [s for s in sites if s.startswith("MPI_Allreduce") or s.startswith("MPI_Sendrecv")]
    for s in mpi:
        frames = s.split(" at ", 1)[1].split(ARROW)
        assert len(frames) >= 2, "stack=4: a path of one frame: %s" % s
        assert frames[0].startswith("callpath_mylib.c:"), "innermost frame is not the library's: %s" % s
    for what, line in want.items():
        assert any(s.split(" at ", 1)[1].split(ARROW)[1:2] == ["callpath_app.c:%d" % line] for s in mpi), \
            "no path through the %s call at callpath_app.c:%d: %s" % (what, line, sites)
