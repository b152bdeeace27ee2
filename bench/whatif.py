#!/usr/bin/env python3
"""Cost of the what-if re-timing (docs/what-if.md) with 1, 5 and 20 scenarios, and with the
default scenarios, next to the whole post-processing.

  bench/whatif.py --lib build/lib/libcpath.so [--np 4] [--runs 3] [--name NAME] -- APP ARGS...

Runs APP under libcpath RUNS times per configuration (sampling on) and prints one Markdown row
per configuration: scenarios, median re-timing seconds (slowest rank), median post-processing
seconds, re-timing share of post-processing, post-processing share of elapsed. The scenario
counts other than the default come from whatif_defaults=0 (identity only) plus rank scenarios
(rankK:0.9).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402


def run(app, np_, lib, opts):
    out = tempfile.mkdtemp(prefix="cpath-whatif-")
    env = {"LD_PRELOAD": os.path.abspath(lib), "LIBCPATH_OPTIONS": "report=0,timeline=0,out=%s,%s" % (out, opts)}
    r = subprocess.run(mpirun_cmd(np_, env) + app, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("whatif.py: %s failed (exit %d):\n%s" % (" ".join(app), r.returncode, r.stderr[-2000:]))
    rep = json.load(open(os.path.join(out, "report.json")))
    shutil.rmtree(out, ignore_errors=True)
    info = rep.get("what_if_info", {})
    return len(rep.get("what_if", [])), info.get("seconds", 0.0), rep["analysis"]["postprocess_s"], rep["elapsed_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--name")
    ap.add_argument("app", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    app = a.app[1:] if a.app and a.app[0] == "--" else a.app
    if not app:
        sys.exit("whatif.py: no application given")
    name = a.name or os.path.basename(app[0])
    configs = [("1", "whatif_defaults=0"),
               ("5", "whatif_defaults=0,whatif=" + ",".join("rank%d:0.9" % (k % a.np) for k in range(4))),
               ("20", "whatif_defaults=0,whatif=" + ",".join("rank%d:0.%d" % (k % a.np, 1 + k // a.np) for k in range(19))),
               ("default", "")]
    print("| workload | scenarios | re-timing (s) | post-processing (s) | re-timing share | post-processing / elapsed |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, opts in configs:
        res = [run(app, a.np, a.lib, opts) for _ in range(a.runs)]
        n = res[0][0]
        wi = statistics.median(r[1] for r in res)
        post = statistics.median(r[2] for r in res)
        el = statistics.median(r[3] for r in res)
        print("| %s | %s (%d) | %.4f | %.3f | %.1f%% | %.1f%% |" % (name, label, n, wi, post, 100 * wi / post if post else 0,
                                                               100 * post / el if el else 0))


if __name__ == "__main__":
    main()
