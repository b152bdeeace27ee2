#!/usr/bin/env python3
"""Added nanoseconds per region marker (include/cpath.h) next to a wrapped MPI call.

  bench/region_overhead.py --build build [--runs 11] [--iters 2000000]

Runs bench/region_overhead (1 rank) alternately without libcpath (the stub's no-ops) and with
it (sampling off), takes the median per pattern and prints a Markdown table. The budget: a
marker should cost no more than the wrapper adds to an MPI call (allreduce_self).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402

PATTERNS = ("region_same", "region_8names", "region_buffer", "allreduce_self")


def run(exe, iters, env):
    out = subprocess.run(mpirun_cmd(1, env) + [exe, str(iters)], capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] in PATTERNS:
            res[p[0]] = float(p[1])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--iters", type=int, default=2000000)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "region_overhead")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    if not os.path.exists(exe) or not os.path.exists(lib):
        sys.exit("region_overhead.py: build the project first (%s, %s missing)" % (exe, lib))
    outdir = tempfile.mkdtemp(prefix="cpath-bench-")
    base, tool = [], []
    for i in range(a.runs):
        base.append(run(exe, a.iters, {}))
        tool.append(run(exe, a.iters, {"LD_PRELOAD": lib,
                                       "LIBCPATH_OPTIONS": "sample=0,report=0,out=%s/r%d" % (outdir, i)}))
    print("| pattern | without (ns/call) | with libcpath (ns/call) | added (ns/call) |")
    print("|---|---:|---:|---:|")
    for k in PATTERNS:
        b = statistics.median(r[k] for r in base)
        t = statistics.median(r[k] for r in tool)
        print("| %s | %.1f | %.1f | %.1f |" % (k, b, t, t - b))


if __name__ == "__main__":
    main()
