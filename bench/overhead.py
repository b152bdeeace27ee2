#!/usr/bin/env python3
"""Overhead of libcpath on a whole MPI application (issue 5's benchmark).

  bench/overhead.py --lib build/lib/libcpath.so [--np 4] [--runs 5] [--name NAME] -- APP ARGS...

Runs the application RUNS times in each of three ways, rotating the order every round so that
machine drift cancels: without the library, with it (sampling off), with it (sampling on, the
default). Elapsed time is the application's own timer when it prints one ("Time in seconds =",
as NPB and the proxies do; --time-regex to change), else mpirun's wall time minus libcpath's
post-processing. Prints one Markdown table row per mode (--header prints the header first):
median elapsed, median ratio to the run without the library, post-processing share of elapsed,
trace bytes per rank, recorded events per second.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402
import time




def run_once(app, np_, env, time_re):
    t0 = time.monotonic()
    r = subprocess.run(mpirun_cmd(np_, env) + app, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit("overhead.py: %s failed (exit %d):\n%s" % (" ".join(app), r.returncode, r.stderr[-2000:]))
    m = re.search(time_re, r.stdout)
    return (float(m.group(1)) if m else None), wall, r.stdout


HEADER = ("| workload | mode | runs | median elapsed (s) | median ratio | post-processing (% of elapsed) "
          "| trace bytes/rank | events/s |\n|---|---|---:|---:|---:|---:|---:|---:|")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--name")
    ap.add_argument("--header", action="store_true")
    ap.add_argument("--time-regex", default=r"Time in seconds\s*=\s*([0-9.]+)")
    ap.add_argument("app", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    app = a.app[1:] if a.app and a.app[0] == "--" else a.app
    if not app:
        sys.exit("overhead.py: no application given")
    lib = os.path.abspath(a.lib)
    name = a.name or os.path.basename(app[0])
    tmp = tempfile.mkdtemp(prefix="cpath-overhead-")
    modes = ["without", "libcpath", "libcpath+sampling"]
    res = {m: [] for m in modes}  # (elapsed, report)
    for i in range(a.runs):
        order = modes[i % 3:] + modes[:i % 3]
        for m in order:
            env = {}
            out = os.path.join(tmp, "%s-%d" % (m, i))
            if m != "without":
                env = {"LD_PRELOAD": lib,
                       "LIBCPATH_OPTIONS": "report=0,out=%s,sample=%d" % (out, 1 if m.endswith("sampling") else 0)}
            own, wall, _ = run_once(app, a.np, env, a.time_regex)
            rep = json.load(open(os.path.join(out, "report.json"))) if m != "without" else None
            elapsed = own if own is not None else wall - (rep["analysis"]["postprocess_s"] if rep else 0.0)
            res[m].append((elapsed, rep))
    base = [e for e, _ in res["without"]]
    if a.header:
        print(HEADER)
    for m in modes:
        el = [e for e, _ in res[m]]
        ratios = [e / b for e, b in zip(el, base)]
        reps = [r for _, r in res[m] if r]
        if reps:
            share = statistics.median(100 * r["analysis"]["postprocess_s"] / r["elapsed_s"] for r in reps)
            bytes_rank = statistics.median(r["trace"]["bytes_per_rank_max"] for r in reps)
            eps = statistics.median(r["trace"]["events_total"] / r["elapsed_s"] for r in reps)
            extra = "%.2f | %d | %.0f" % (share, bytes_rank, eps)
        else:
            extra = "- | - | -"
        print("| %s | %s | %d | %.3f | %.4f | %s |" % (name, m, a.runs, statistics.median(el), statistics.median(ratios), extra))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
