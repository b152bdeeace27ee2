#!/usr/bin/env python3
"""Cost of the wait-state analysis (issue 9) in libcpath's finalize-time post-processing.

  bench/wait_states_cost.py --lib build/lib/libcpath.so [--np 4] [--runs 5] [--name NAME] [--header] -- APP ARGS...

Runs APP under libcpath RUNS times (sampling off, no timeline: the steps around the wait
states stay the same) and reads report.json: the post-processing time (slowest rank) and its
"wait states" step. Prints one Markdown row: medians of post-processing with the analysis, of
the step, of post-processing without it (the difference), and the ratio with / without
(the issue's bound: at most 1.25).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--name", default=None)
    ap.add_argument("--header", action="store_true")
    ap.add_argument("app", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    app = [x for x in a.app if x != "--"]
    post, ws = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            out = os.path.join(tmp, "r%d" % i)
            env = {"LD_PRELOAD": os.path.abspath(a.lib), "LIBCPATH_OPTIONS": "report=0,sample=0,timeline=0,out=%s" % out}
            r = subprocess.run(mpirun_cmd(a.np, env) + app, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("wait_states_cost.py: %s failed (exit %d):\n%s" % (" ".join(app), r.returncode, r.stderr[-2000:]))
            rep = json.load(open(os.path.join(out, "report.json")))
            post.append(rep["analysis"]["postprocess_s"])
            ws.append(rep["analysis"]["phases"].get("wait states", 0.0))
    p, w = statistics.median(post), statistics.median(ws)
    without = statistics.median(x - y for x, y in zip(post, ws))
    if a.header:
        print("| workload | post-processing (s) | wait states step (s) | without it (s) | ratio |")
        print("|---|---|---|---|---|")
    print("| %s | %.4f | %.4f | %.4f | %.3f |" % (a.name or " ".join(app), p, w, without, p / without if without > 0 else float("nan")))


if __name__ == "__main__":
    main()
