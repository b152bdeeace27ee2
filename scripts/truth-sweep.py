#!/usr/bin/env python3
"""Runs many ground-truth seeds (tests/truth/) and tallies which pass, for sweeps beyond the few
seeds CI runs. Each seed is one real mpirun job under libcpath.

  scripts/truth-sweep.py [--build build] [--seeds 1-40] [--features all|f1,f2] [--np 4]
                         [--rounds 14] [--options k=v,...] [--keep]

Prints one line per seed (PASS, or FAIL with the check's first line) and a summary. Timing
noise matters: run it on a quiet machine, and rerun a failing seed alone before concluding.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)


def seeds(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--seeds", default="1-40")
    ap.add_argument("--features", default="all")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=14)
    ap.add_argument("--options", default="")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--workdir", default="/tmp/cpath-truth-sweep")
    ap.add_argument("--keep", action="store_true", help="keep the work directories of passing seeds")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    passed, failed = [], []
    for s in seeds(a.seeds):
        work = os.path.join(a.workdir, "seed%d" % s)
        cmd = [sys.executable, os.path.join(root, "tests", "truth", "run_truth_test.py"), "--seed", str(s),
               "--features", a.features, "--rounds", str(a.rounds), "--np", str(a.np),
               "--interp", os.path.join(b, "bin", "truth_program"), "--lib", os.path.join(b, "lib", "libcpath.so"),
               "--reader", os.path.join(b, "bin", "cpath-read"), "--mpirun", a.mpirun, "--workdir", work]
        if a.options:
            cmd += ["--options", a.options]
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CPATH_TRUTH_NO_RETRY="1"))
        out = r.stdout + r.stderr
        if r.returncode == 0:
            passed.append(s)
            print("seed %d PASS" % s, flush=True)
            if not a.keep:
                shutil.rmtree(work, ignore_errors=True)
        else:
            failed.append(s)
            m = re.search(r"^FAIL: (.*(?:\n  .*)*)", out, re.M)
            print("seed %d FAIL %s" % (s, m.group(1) if m else out[-600:]), flush=True)
    print("features %s: %d passed, %d failed%s" % (a.features, len(passed), len(failed),
                                                  (" (seeds %s)" % ",".join(map(str, failed))) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
