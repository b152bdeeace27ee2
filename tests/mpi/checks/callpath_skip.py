"""Call sites through a library (tests/mpi/callpath_app.c): with skip=libmylib.so the MPI calls
on the critical path are charged to the application's lines that called the library (the
lines marked CALL-SITE); without skip=, to the library's own lines (the control)."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ARROW = " \u2190 "


def site_lines():
    lines = {}
    with open(os.path.join(HERE, "..", "callpath_app.c")) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"/\* CALL-SITE (\w+) \*/", line)
            if m:
                lines[m.group(1)] = n
    return lines


def check(run):
    skip = "skip" in run.cmd
    sites = [s["callsite"] for s in run.report["critical_path"]["by_callsite"]]
    assert sites, "no call sites on the path"
    want = site_lines()
    mpi_sites = [s for s in sites if "callpath_" in s]
    assert mpi_sites, "no call site names a source file of the test: %s" % sites
    if skip:
        bad = [s for s in mpi_sites if "callpath_mylib.c" in s]
        assert not bad, "with skip=libmylib.so, calls still charged to the library: %s" % sites
        # With stack=4 a site is a path, innermost frame first: that frame is the call site.
        inner = [s.split(ARROW)[0] for s in sites]
        for what, line in want.items():
            assert any(s.endswith("callpath_app.c:%d" % line) for s in inner), \
                "the %s call site callpath_app.c:%d is not on the path: %s" % (what, line, sites)
    else:
        assert any("callpath_mylib.c" in s for s in mpi_sites), \
            "control run: the call sites should be the library's own lines: %s" % sites
