"""Call paths (tests/mpi/callpath_app.c, mode "paths"): the same library call is made from two
application lines, rank 1 computing 300 ms before the one via PATH-A and 100 ms before the one
via PATH-B, twice. With stack=N > 1 the critical path's compute ending at the call via PATH-A
is 0.6 s and via PATH-B 0.2 s (by construction), each in rows naming its own line, and the MPI
call-site table has one row per path, innermost frame the library's; with stack=1 there is one
call site, the library's line, holding both (0.8 s)."""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ARROW = " \u2190 "


def marked_lines(path, tag):
    lines = {}
    with open(os.path.join(HERE, "..", path)) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"/\* %s-(\w+) \*/" % tag, line)
            if m:
                lines[m.group(1)] = n
    return lines


def mylib_sum_line():
    with open(os.path.join(HERE, "..", "callpath_mylib.c")) as f:
        for n, line in enumerate(f, 1):
            if "MPI_Allreduce" in line:
                return n
    raise AssertionError("no MPI_Allreduce in callpath_mylib.c")


def stack_depth(run):
    # The program's argument is the label: "paths" runs with stack=4, "paths-stack1" without.
    return 1 if any(str(c).endswith("stack1") for c in run.cmd) else 4


def measured(run):
    """Rank 1's own clock: its compute before the calls via PATH-A and PATH-B (built 0.6 and
    0.2 s; a loaded machine stretches them)."""
    times = {}
    with open(os.path.join(os.path.dirname(run.dir), "expect", "callpath_times.txt")) as f:
        for line in f:
            k, v = line.split()
            times[k] = float(v)
    assert 0.6 <= times["A"] < 1.2 and 0.2 <= times["B"] < 0.6, "rank 1 computed %s" % times
    return times


def check(run):
    lines = marked_lines("callpath_app.c", "PATH")
    lib = "callpath_mylib.c:%d" % mylib_sum_line()
    cp = run.report["critical_path"]
    sites = [s["callsite"] for s in cp["by_callsite"] if s["callsite"].startswith("MPI_Allreduce at ")]
    acts = [a for a in cp["activities"] if a["kind"] == "compute"]

    def ends_at(desc):  # the call site of the MPI call the compute interval ends at
        m = re.search(r"(?:and|before) MPI_Allreduce at (.*?)(?: in region .*)?(?: on rank \d+)?$", desc)
        return m.group(1) if m else None

    if stack_depth(run) > 1:
        assert ARROW not in lib
        for what, line in lines.items():
            want = lib + ARROW + "callpath_app.c:%d" % line
            rows = [s for s in sites if s[len("MPI_Allreduce at "):].startswith(want)]
            assert len(rows) == 1, "expected one MPI_Allreduce row whose path starts %s, got %s" % (want, sites)
            assert all(s.count(ARROW) >= 2 for s in rows), "path has fewer frames than asked: %s" % rows
        assert len(sites) == 2, "the two paths should be the only MPI_Allreduce sites: %s" % sites
        want_s = measured(run)
        for what, line in lines.items():
            key = lib + ARROW + "callpath_app.c:%d" % line
            t = sum(a["time_s"] for a in acts if (ends_at(a["description"]) or "").startswith(key))
            assert abs(t - want_s[what]) <= 0.1 * want_s[what], \
                "compute ending at the call via PATH-%s (line %d): %.3f s on the path, rank 1 measured %.3f s\n%s" % (
                    what, line, t, want_s[what], "\n".join("%s %.3f" % (a["description"], a["time_s"]) for a in acts))
    else:
        assert sites == ["MPI_Allreduce at " + lib], "stack=1: one call site, the library's line: %s" % sites
        t = sum(a["time_s"] for a in acts if ends_at(a["description"]) == lib)
        want = sum(measured(run).values())
        assert abs(t - want) <= 0.1 * want, "stack=1: compute ending at %s %.3f s, rank 1 measured %.3f s" % (lib, t, want)
        assert not any(ARROW in a["description"] for a in cp["activities"]), "stack=1 names no paths"
