"""The mpirun command line the benchmark scripts share (Open MPI: oversubscribe, root, -x)."""
import os
import statistics
import subprocess


def mpirun_cmd(np_, env, extra=()):
    cmd = ["mpirun", "--oversubscribe"] + list(extra) + ["-np", str(np_)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    for k, v in env.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    return cmd


def run_figures(exe, np_, args, env, names):
    """Runs a benchmark printing "<name> <number>" lines; returns {name: number} for `names`."""
    out = subprocess.run(mpirun_cmd(np_, env) + [exe] + [str(a) for a in args], capture_output=True, text=True,
                         check=True).stdout
    res = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] in names:
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
