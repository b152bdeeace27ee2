#!/usr/bin/env python3
"""What libcpath's finalize-time analysis costs per recorded event, measured from outside the
library: bench/halo_bench (Irecv/Isend to two neighbours, Waitall, an Allreduce every 10th
iteration) at 4 ranks, sampling off. Per run: events per rank, CPU ns per event of MPI_Finalize
(the process's CPU time across the call, slowest rank), peak RSS growth per event (VmHWM after
MPI_Finalize minus VmRSS before it, largest rank), the report's memory_per_rank_max_bytes
beside that, and post-processing wall time. A second table splits the CPU per event by step
(analysis.phase_cpu_s, largest rank, medians): the core (trace decoding to the critical-path
walk), wait states, the what-if, and the rest.

  bench/analysis_cost.py --build build [--np 4] [--iters 10000,100000] [--runs 1] [--lib OLD/libcpath.so]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--iters", default="10000,100000")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--options", default="", help="extra LIBCPATH_OPTIONS")
    ap.add_argument("--lib", help="libcpath.so to measure (default: BUILD/lib/libcpath.so), e.g. an older build")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "halo_bench")
    lib = os.path.abspath(a.lib or os.path.join(a.build, "lib", "libcpath.so"))
    with tempfile.TemporaryDirectory(prefix="cpath-analysis-cost-") as tmp:
        measure(a, exe, lib, tmp)


def measure(a, exe, lib, tmp):
    print("| iterations | events/rank | CPU ns/event (finalize) | peak RSS bytes/event | memory_per_rank_max_bytes "
          "| measured peak growth (bytes) | post-processing (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    split = []
    for iters in [int(x) for x in a.iters.split(",")]:
        rows, steps = [], []
        for i in range(a.runs):
            out = os.path.join(tmp, "%d-%d" % (iters, i))
            opts = "report=0,sample=0,timeline=0,out=" + out + ("," + a.options if a.options else "")
            cmd = mpirun_cmd(a.np, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": opts},
                             ["--mca", "mpi_yield_when_idle", "1"]) + [exe, str(iters), "0"]
            r = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=3600)
            fin = [(int(m.group(1)), int(m.group(2))) for m in
                   re.finditer(r"finalize rank \d+ cpu_ns (\d+) rss_growth_bytes (\d+)", r.stdout)]
            rep = json.load(open(os.path.join(out, "report.json")))
            ev = rep["trace"]["events_total"] / a.np
            rows.append((ev, max(c for c, _ in fin) / ev, max(g for _, g in fin) / ev,
                         rep["analysis"]["memory_per_rank_max_bytes"], max(g for _, g in fin),
                         rep["analysis"]["postprocess_s"]))
            steps.append(step_cpu(rep["analysis"].get("phase_cpu_s", {}), ev))
        med = [statistics.median(r[k] for r in rows) for k in range(6)]
        print("| %d | %d | %.0f | %.0f | %d | %d | %.3f |" % (iters, med[0], med[1], med[2], med[3], med[4], med[5]))
        sys.stdout.flush()
        split.append((iters, [statistics.median(s[k] for s in steps) for k in range(len(STEP_GROUPS) + 1)]))
    print()
    print("| iterations | " + " | ".join("%s (CPU ns/event)" % g for g, _ in STEP_GROUPS) + " | rest |")
    print("|---:|" + "---:|" * (len(STEP_GROUPS) + 1))
    for iters, v in split:
        print("| %d | " % iters + " | ".join("%.0f" % x for x in v) + " |")


# Steps of analysis.phase_cpu_s by what they serve; "core" is what issue 15's per-event target
# names (decode, link, match, build the PAG, walk it).
STEP_GROUPS = [
    ("core", ["trace decoding", "spill release", "timeline and requests", "point-to-point replay",
              "collective replay", "clock-condition repair", "critical-path walk"]),
    ("wait states", ["wait states"]),
    ("what-if", ["what if"]),
]


def step_cpu(phases, events):
    grouped = [sum(phases.get(k, 0.0) for k in keys) for _, keys in STEP_GROUPS]
    named = {k for _, keys in STEP_GROUPS for k in keys}
    rest = sum(v for k, v in phases.items() if k not in named)
    return [x * 1e9 / events for x in grouped + [rest]]


if __name__ == "__main__":
    main()
