#!/usr/bin/env python3
"""Instructions of libcpath's finalize-time analysis per recorded event, counted by callgrind:
deterministic where bench/analysis_cost.py's nanoseconds vary by 15 % between runs.

  bench/analysis_instructions.py --build build [--lib OLD/libcpath.so] [--iters 20000] [--runs 1]

Runs bench/halo_bench on 4 ranks, each under `valgrind --tool=callgrind` collecting only
inside MPI_Finalize, sampling and timeline off, and prints the inclusive instructions of the
main steps summed over all ranks, per event of the job. Summed over ranks, because one rank's
share of the critical path (and so of the walks' work) changes from run to run: rank 0 alone
swung by a quarter between two runs of one build.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402

# (row, pattern of callgrind_annotate's inclusive line): the first line matching wins.
STEPS = [
    ("whole MPI_Finalize", r"PROGRAM TOTALS"),
    ("what-if", r"\s/\S*analysis/what_if\.cpp:cpath::analyse_what_if\("),
    ("  its new-path walks", r"\s/\S*replay/retimed_walk\.h:cpath::walk_retimed_all\("),
    ("  its forward pass", r"\s/\S*replay/forward_pass\.cpp:cpath::run_forward_pass\(cpath::ForwardInput const&, int, ompi_communicator_t\*\)"),
    ("point-to-point replay", r"\s/\S*replay/p2p_replay\.cpp:cpath::replay_point_to_point\("),
    ("build_ops", r"\s/\S*replay/ops\.cpp:cpath::build_ops\("),
    ("wait states", r"\s/\S*analysis/wait_states/analyse_wait_states\.cpp:cpath::analyse_wait_states\("),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--lib", help="libcpath.so to measure (default: BUILD/lib/libcpath.so)")
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    exe = os.path.abspath(os.path.join(a.build, "bin", "halo_bench"))
    lib = os.path.abspath(a.lib or os.path.join(a.build, "lib", "libcpath.so"))
    runs = [measure(exe, lib, a.iters) for _ in range(a.runs)]
    print("| step | instructions per event (median of %d) |" % a.runs)
    print("|---|---:|")
    for name, _ in STEPS:
        print("| %s | %.0f |" % (name, statistics.median(r.get(name, 0.0) for r in runs)))


def measure(exe, lib, iters):
    with tempfile.TemporaryDirectory(prefix="cpath-analysis-ins-") as tmp:
        out = os.path.join(tmp, "out")
        env = {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": "report=0,sample=0,timeline=0,out=" + out}
        cmd = mpirun_cmd(4, env, ["--mca", "mpi_yield_when_idle", "1"]) + [
            "valgrind", "--tool=callgrind", "--toggle-collect=MPI_Finalize",
            "--callgrind-out-file=%s/cg.%%p" % tmp, exe, str(iters), "0"]
        subprocess.run(cmd, check=True, capture_output=True, timeout=3600)
        events = json.load(open(os.path.join(out, "report.json")))["trace"]["events_total"]
        total = dict.fromkeys((n for n, _ in STEPS), 0)
        for f in glob.glob(os.path.join(tmp, "cg.*")):
            lines = subprocess.run(["callgrind_annotate", "--inclusive=yes", f], check=True, capture_output=True,
                                   text=True).stdout.splitlines()
            for name, pat in STEPS:
                hit = next((l for l in lines if re.search(pat, l)), None)
                if hit:
                    total[name] += int(hit.split()[0].replace(",", ""))
        return {n: v / events for n, v in total.items()}


if __name__ == "__main__":
    main()
