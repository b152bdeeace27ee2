#!/usr/bin/env python3
"""What writing the timeline costs at MPI_Finalize (issue 11's figure).

  bench/timeline.py --build build [--np 4] [--runs 3] [--cap SIZE] [--header]

Runs the NPB-style proxies (tests/workloads: lu_wavefront, bt_adi) at their default sizes under
libcpath RUNS times and prints one Markdown row per proxy: timeline.json size, slices kept of
the run's total, capped or not, median time to build the timeline's data and to write it
(slowest rank, from analysis.phases), the same as a share of elapsed, and timeline.bin's size.
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

HEADER = ("| proxy | ranks | timeline.json | slices kept / total | capped | build (s) | write (s) | write, % of elapsed "
          "| timeline.bin |\n|---|---:|---:|---:|---|---:|---:|---:|---:|")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cap", default="", help="timeline_max for the runs (default: the library's)")
    ap.add_argument("--header", action="store_true")
    a = ap.parse_args()
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    tmp = tempfile.mkdtemp(prefix="cpath-timeline-")
    if a.header:
        print(HEADER)
    try:
        for proxy in ("lu_wavefront", "bt_adi"):
            app = os.path.abspath(os.path.join(a.build, "bin", proxy))
            build, write, share, rows = [], [], [], []
            for k in range(a.runs):
                out = os.path.join(tmp, "%s-%d" % (proxy, k))
                opts = "out=%s,report=0" % out + (",timeline_max=" + a.cap if a.cap else "")
                r = subprocess.run(mpirun_cmd(a.np, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": opts}) + [app],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("timeline.py: %s failed: %s" % (proxy, r.stderr[-2000:]))
                rep = json.load(open(os.path.join(out, "report.json")))
                ph, tl = rep["analysis"]["phases"], rep["timeline"]
                build.append(ph.get("timeline data", 0))
                write.append(ph.get("timeline write", 0))
                share.append(100 * ph.get("timeline write", 0) / rep["elapsed_s"])
                rows.append((tl["bytes"], tl["slices_kept"], tl["slices_total"], tl["capped"],
                             os.path.getsize(os.path.join(out, "timeline.bin"))))
                shutil.rmtree(out, ignore_errors=True)
            b, kept, total, capped, binsize = rows[-1]
            print("| %s | %d | %.1f MiB | %d / %d | %s | %.3f | %.3f | %.1f%% | %.2f MiB |" % (
                proxy, a.np, b / 2**20, kept, total, "yes" if capped else "no", statistics.median(build),
                statistics.median(write), statistics.median(share), binsize / 2**20))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
