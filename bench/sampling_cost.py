#!/usr/bin/env python3
"""What sampling costs a rank, by mechanism (bench/sampling_cost.c): ns per sched_yield() (a
context switch when ranks outnumber CPUs: the per-switch tax of per-thread perf events) and ns
per iteration of a compute loop (the per-sample cost), without libcpath, with sampling off,
with perf-event sampling and with the POSIX CPU-time timer. Runs rotate the order each round;
medians of --runs.

  bench/sampling_cost.py --build build [--runs 5] [--freq 1000] [--yields 300000] [--iters 300000000]

Three placements: 2 ranks on CPU 0 (every yield a switch between them: the clearest figure,
and robust under load in CPU ns), 4 ranks on all CPUs without binding (oversubscribed on a
2-core machine) and 2 ranks bound to cores (not oversubscribed when >= 2 cores are free).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import run_figures  # noqa: E402


def run(exe, np_, bind, env, mode, n):
    """(wall ns, CPU ns) per iteration. bind "cpu0": every rank on CPU 0 (taskset)."""
    fig = run_figures(exe, np_, [mode, n], env, (mode + "_ns", mode + "_cpu_ns"),
                      flags=["--bind-to", "none" if bind == "cpu0" else bind, "--mca", "mpi_yield_when_idle", "1"],
                      prefix=["taskset", "-c", "0"] if bind == "cpu0" else [])
    return fig[mode + "_ns"], fig[mode + "_cpu_ns"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--freq", type=int, default=1000)
    ap.add_argument("--yields", type=int, default=300000)
    ap.add_argument("--iters", type=int, default=300000000)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "sampling_cost")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    base = "report=0,analysis=0,freq=%d" % a.freq
    modes = {
        "without": None,
        "sample=0": base + ",sample=0",
        "perf cpu-clock": base + ",sampler=perf",
        "cpu-time timer": base + ",sampler=timer",
    }
    placements = [("2 ranks on one CPU (oversubscribed)", 2, "cpu0"), ("4 ranks, unbound (oversubscribed)", 4, "none"),
                  ("2 ranks, bound to cores", 2, "core")]
    print("| placement | mode | sched_yield: wall ns | added | sched_yield: CPU ns | added "
          "| compute: wall ns/iter | added |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for title, np_, bind in placements:
        res = {m: {"yield": [], "ycpu": [], "compute": []} for m in modes}
        names = list(modes)
        for i in range(a.runs):
            for m in names[i % len(names):] + names[:i % len(names)]:
                env = {} if modes[m] is None else {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": modes[m]}
                w, c = run(exe, np_, bind, env, "yield", a.yields)
                res[m]["yield"].append(w)
                res[m]["ycpu"].append(c)
                res[m]["compute"].append(run(exe, np_, bind, env, "compute", a.iters)[0])
        med = {m: {k: statistics.median(v) for k, v in res[m].items()} for m in names}
        b = med["without"]
        for m in names:
            f = med[m]
            print("| %s | %s | %.1f | %+.1f%% | %.1f | %+.1f%% | %.3f | %+.2f%% |" % (
                title, m, f["yield"], 100 * (f["yield"] / b["yield"] - 1), f["ycpu"], 100 * (f["ycpu"] / b["ycpu"] - 1),
                f["compute"], 100 * (f["compute"] / b["compute"] - 1)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
