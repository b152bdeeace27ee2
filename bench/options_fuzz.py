#!/usr/bin/env python3
"""The random-options property test (tests/mpi/run_robust_test.py fuzz), longer: N random
LIBCPATH_OPTIONS strings thrown at a small 4-rank program; each run must keep the program's
output and exit code, end within a bounded time, and add only "libcpath: " lines to stderr.
CI runs 8 strings with seed 16; this runs more, with any seed.

  bench/options_fuzz.py --build build [--count 200] [--seed 1] [--mpirun mpirun]
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--workdir", default="/tmp/cpath-options-fuzz")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "tests", "mpi", "run_robust_test.py")
    sys.exit(subprocess.call([sys.executable, script, "fuzz", "--lib", os.path.join(a.build, "lib", "libcpath.so"),
                              "--bin", os.path.join(a.build, "bin"), "--workdir", a.workdir, "--mpirun", a.mpirun,
                              "--count", str(a.count), "--seed", str(a.seed)]))


if __name__ == "__main__":
    main()
