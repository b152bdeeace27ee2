"""The mpirun command line the benchmark scripts share (Open MPI: oversubscribe, root, -x)."""
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "mpi"))
from run_mpi_test import launcher  # noqa: E402


def mpirun_cmd(np_, env, extra=()):
    """`extra`: launcher flags (before -np). Open MPI's own yield choice is kept: benchmarks
    measure the library as users run it."""
    return launcher(np_, env, [], yield_when_idle=None, flags=extra)


def run_figures(exe, np_, args, env, names, flags=(), prefix=()):
    """Runs a benchmark printing "<name> <number>" lines; returns {name: number} for `names`
    (a collection of names, or a predicate on the name). `flags` go to the launcher, `prefix`
    before it (e.g. taskset). Exits with the run's stderr if it fails."""
    r = subprocess.run(list(prefix) + mpirun_cmd(np_, env, flags) + [exe] + [str(a) for a in args],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s: run failed (exit %d):\n%s" % (os.path.basename(exe), r.returncode, r.stderr[-2000:]))
    wanted = names if callable(names) else (lambda n: n in names)
    res = {}
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) == 2 and wanted(p[0]):
            res[p[0]] = float(p[1])
    return res


def print_added_table(base, tool, names):
    """Markdown table of the medians without / with libcpath and their difference."""
    print("| pattern | without (ns/call) | with libcpath (ns/call) | added (ns/call) |")
    print("|---|---:|---:|---:|")
    for k in names:
        b = statistics.median(r[k] for r in base)
        t = statistics.median(r[k] for r in tool)
        print("| %s | %.1f | %.1f | %.1f |" % (k, b, t, t - b))
