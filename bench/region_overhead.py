#!/usr/bin/env python3
"""Added nanoseconds per region marker (include/cpath.h) next to a wrapped MPI call.

  bench/region_overhead.py --build build [--runs 11] [--iters 2000000]

Runs bench/region_overhead (1 rank) alternately without libcpath (the stub's no-ops) and with
it (sampling off), takes the median per pattern and prints a Markdown table. The budget: a
marker should cost no more than the wrapper adds to an MPI call (allreduce_self).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import print_added_table, run_figures  # noqa: E402

PATTERNS = ("region_same", "region_8names", "region_buffer", "allreduce_self")


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
        base.append(run_figures(exe, 1, [a.iters], {}, PATTERNS))
        tool.append(run_figures(exe, 1, [a.iters], {"LD_PRELOAD": lib,
                                                   "LIBCPATH_OPTIONS": "sample=0,report=0,out=%s/r%d" % (outdir, i)},
                                 PATTERNS))
    print_added_table(base, tool, PATTERNS)


if __name__ == "__main__":
    main()
