#!/usr/bin/env python3
"""Scale check of the communication matrix (issue 10): what rank 0 gathers must grow with the
pairs that talk, not with P^2.

  bench/comm_scale.py --build build [--ranks 16,32,64] [--iters 50]

Runs bench/halo_bench (nearest-neighbour ring: every rank talks to its two neighbours) under
libcpath at each rank count, oversubscribed, and prints a Markdown table: pairs in the matrix,
bytes rank 0 gathered for the communication rows, bytes per pair, what a dense P x P matrix of
(bytes, messages) would take, the analysis heap per rank (largest rank) and the time of the
communication step at finalize (slowest rank).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", default="16,32,64")
    ap.add_argument("--iters", type=int, default=50)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "halo_bench")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    if not os.path.exists(exe):
        sys.exit("comm_scale.py: %s not found (build the project first)" % exe)
    tmp = tempfile.mkdtemp(prefix="cpath-comm-scale-")
    print("| ranks | pairs | gathered bytes (rank 0) | gathered bytes/rank | dense P x P (16 B/entry) | analysis heap/rank (max) "
          "| communication step (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in [int(x) for x in a.ranks.split(",")]:
        out = os.path.join(tmp, "np%d" % n)
        cmd = mpirun_cmd(n, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": "report=0,sample=0,out=" + out},
                         ["--mca", "mpi_yield_when_idle", "1"]) + [exe, str(a.iters), "0"]
        subprocess.run(cmd, check=True, capture_output=True, timeout=1800)
        r = json.load(open(os.path.join(out, "report.json")))
        c = r["communication"]
        pairs = c["pairs"]
        print("| %d | %d | %d | %.1f | %d | %d | %.4f |" % (
            n, pairs, c["gathered_bytes"], c["gathered_bytes"] / n, 16 * n * n,
            r["analysis"]["memory_per_rank_max_bytes"], r["analysis"]["phases"].get("communication matrices", 0)))


if __name__ == "__main__":
    main()
