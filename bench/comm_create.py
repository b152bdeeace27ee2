#!/usr/bin/env python3
"""Cost of creating communicators under libcpath (issue 16): bench/comm_create (N x split+free,
N x dup+free) plain and with the library, alternating, medians.

  bench/comm_create.py --build build [--lib LIB] [--np 4] [--runs 5] [--iters 2000] [--options OPTS]

Prints one Markdown row per loop: median seconds plain, with libcpath, ratio. The loops are
timed inside the program (MPI_Wtime around each loop, slowest rank), so the finalize-time
analysis is not counted; its time is printed separately from the report (post-processing)."""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import run_figures  # noqa: E402


def run(exe, np_, iters, env):
    return run_figures(exe, np_, [iters], env, lambda name: name.endswith("_s"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--lib")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--options", default="", help="extra LIBCPATH_OPTIONS, e.g. sample=0")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "comm_create")
    lib = os.path.abspath(a.lib or os.path.join(a.build, "lib", "libcpath.so"))
    tmp = tempfile.mkdtemp(prefix="cpath-comm-create-")
    plain, with_lib, post = {}, {}, []
    for i in range(a.runs):
        order = [False, True] if i % 2 == 0 else [True, False]
        for use in order:
            if use:
                out_dir = os.path.join(tmp, "run%d" % i)
                res = run(exe, a.np, a.iters, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": ",".join(
                    x for x in ("report=file,quiet=1,out=" + out_dir, a.options) if x)})
                rep = os.path.join(out_dir, "report.json")
                if os.path.exists(rep):
                    post.append(json.load(open(rep))["analysis"]["postprocess_s"])
                target = with_lib
            else:
                res = run(exe, a.np, a.iters, {})
                target = plain
            for k, v in res.items():
                target.setdefault(k, []).append(v)
    shutil.rmtree(tmp, ignore_errors=True)
    print("| loop (%d ranks, %d iterations) | plain (s) | libcpath (s) | ratio |" % (a.np, a.iters))
    print("|---|---:|---:|---:|")
    for k in sorted(plain):
        p, w = statistics.median(plain[k]), statistics.median(with_lib[k])
        print("| %s | %.3f | %.3f | %.2f |" % (k[:-2].replace("_", " + "), p, w, w / p if p else float("nan")))
    if post:
        print("\nfinalize-time analysis (median): %.3f s" % statistics.median(post))


if __name__ == "__main__":
    main()
