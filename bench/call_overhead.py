#!/usr/bin/env python3
"""Added nanoseconds per MPI call and bytes per recorded event (issue 2's benchmark).

  bench/call_overhead.py --build build [--runs 11] [--iters 200000] [--np 2] [--options stack=4]
  bench/call_overhead.py --build build --compare "stack=1;stack=4;stack=16" [--depth 30]

With --compare, each run goes through every option set in turn (and once without libcpath),
so load drifts hit them alike; the table gives the added nanoseconds per call of each set.
--depth D makes every MPI call D frames deeper (the program recurses before its loops), for the
cost of stack=N where applications call MPI through layers of libraries.

Runs bench/call_overhead (built as build/bin/call_overhead) alternately without and with
libcpath (sampling off: this measures the wrappers), takes the median of each pattern's
per-call time over the runs, and prints a Markdown table with the difference. Bytes per event
come from the report of the last run with the library.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import print_added_table, run_figures  # noqa: E402

PATTERNS = ("pingpong", "isend_irecv_waitall", "allreduce")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--iters", type=int, default=200000)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--options", default="", help="more libcpath options, e.g. stack=4,skip=libfoo.so")
    ap.add_argument("--compare", default="", help="option sets separated by ';', run interleaved")
    ap.add_argument("--depth", type=int, default=0, help="extra stack frames above every MPI call")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "call_overhead")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    if not os.path.exists(exe) or not os.path.exists(lib):
        sys.exit("call_overhead.py: build the project first (%s, %s missing)" % (exe, lib))
    outdir = tempfile.mkdtemp(prefix="cpath-bench-")
    if a.compare:
        compare(a, exe, lib, outdir)
        return
    base, tool = [], []
    for i in range(a.runs):
        base.append(run_figures(exe, a.np, [a.iters, a.depth], {}, PATTERNS))
        tool.append(run_figures(exe, a.np, [a.iters, a.depth], {"LD_PRELOAD": lib,
                                                     "LIBCPATH_OPTIONS": "sample=0,report=0,out=%s/r%d" % (outdir, i)
                                                     + ("," + a.options if a.options else "")},
                                 PATTERNS))
    rep = json.load(open(os.path.join(outdir, "r%d" % (a.runs - 1), "report.json")))
    print_added_table(base, tool, PATTERNS)
    tr = rep["trace"]
    print()
    print("trace: %d events, %.2f bytes/event, %d bytes max per rank; %d runs x %d iterations, %d ranks"
          % (tr["events_total"], tr["bytes_per_event"], tr["bytes_per_rank_max"], a.runs, a.iters, a.np))


def compare(a, exe, lib, outdir):
    sets = [s.strip() for s in a.compare.split(";")]
    base, tool = [], {s: [] for s in sets}
    for i in range(a.runs):
        base.append(run_figures(exe, a.np, [a.iters, a.depth], {}, PATTERNS))
        for k, s in enumerate(sets):
            opts = "sample=0,report=0,out=%s/r%d_%d" % (outdir, i, k) + ("," + s if s else "")
            tool[s].append(run_figures(exe, a.np, [a.iters, a.depth], {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": opts}, PATTERNS))
    print("| options | " + " | ".join("%s added (ns/call)" % p for p in PATTERNS) + " |")
    print("|---|" + "---:|" * len(PATTERNS))
    print("| (without libcpath, ns/call) | " + " | ".join("%.1f" % statistics.median(r[p] for r in base) for p in PATTERNS) + " |")
    for s in sets:
        added = [statistics.median(r[p] for r in tool[s]) - statistics.median(r[p] for r in base) for p in PATTERNS]
        print("| `%s` | " % (s or "(default)") + " | ".join("%.1f" % x for x in added) + " |")
    print()
    print("medians of %d interleaved runs x %d iterations, %d ranks, %d extra frames" % (a.runs, a.iters, a.np, a.depth))


if __name__ == "__main__":
    main()
