#!/usr/bin/env python3
"""The critical-path walk alone (bench/walk_bench.cpp) on synthetic token rings: H = 10^3 ...
10^6 hand-offs at 4 ... 64 ranks (oversubscribed on small machines). Prints one Markdown table:
the pointer-jumping walk's rounds grow with log2(H) and its time with the rounds and the data
per rank, while the sequential walk (run up to --sequential-max hand-offs) passes one message
per hand-off.

  bench/walk_bench.py --build build [--ranks 4,16,64] [--handoffs 1000,10000,100000,1000000]
                      [--pad 2] [--reps 3] [--sequential-max 20000] [--walks K]

With --walks K (K > 1) the table is instead K walks one after another against the K walks in
shared rounds, as the what-if walks its scenarios' new paths.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", default="4,16,64")
    ap.add_argument("--handoffs", default="1000,10000,100000,1000000")
    ap.add_argument("--pad", type=int, default=2, help="extra local events per ring step")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sequential-max", type=int, default=20000)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--walks", type=int, default=1)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "walk_bench")
    if a.walks > 1:
        print("| ranks | hand-offs | walks | one after another (s) | in shared rounds (s) | identical |")
        print("|---:|---:|---:|---:|---:|---|")
    else:
        print("| ranks | hand-offs | events/rank | rounds | jumping walk (s) | of which rounds (s) | sequential walk (s) | identical |")
        print("|---:|---:|---:|---:|---:|---:|---:|---|")
    sys.stdout.flush()
    for np_ in [int(x) for x in a.ranks.split(",")]:
        for h in [int(x) for x in a.handoffs.split(",")]:
            cmd = mpirun_cmd(np_, {}, ["--mca", "mpi_yield_when_idle", "1"]) + [
                exe, str(h), "--pad", str(a.pad), "--reps", str(a.reps), "--sequential-max", str(a.sequential_max),
                "--walks", str(a.walks)]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                line = [l for l in r.stdout.splitlines() if l.startswith("|")]
                print(line[0] if line else "| %d | %d | failed: %s |" % (np_, h, r.stderr.strip()[-200:]))
            except subprocess.TimeoutExpired:
                print("| %d | %d | timed out after %d s |" % (np_, h, a.timeout))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
