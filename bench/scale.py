#!/usr/bin/env python3
"""Analysis cost against the number of ranks, for the same work per rank (weak scaling).

  bench/scale.py --build build [--ranks 4,8,16,32,64] [--iters 500]

Runs bench/halo_bench under libcpath at each rank count (oversubscribed if needed) and prints
a Markdown table: events per rank, trace bytes per rank, analysis heap per rank (largest rank),
post-processing time, elapsed, and how often the path changed rank.

With --comm, the table is the communication matrix's instead (issue 10: what rank 0 gathers
grows with the pairs that talk, not with P^2; halo_bench is a nearest-neighbour ring): pairs,
bytes rank 0 gathered for the communication rows, per rank, what a dense P x P matrix of
(bytes, messages) would take, and the time of the communication step (slowest rank).
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
    ap.add_argument("--ranks", default="4,8,16,32,64")
    ap.add_argument("--iters", type=int, default=500)
    ap.add_argument("--comm", action="store_true", help="communication-matrix figures instead")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "halo_bench")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    if not os.path.exists(exe):
        sys.exit("scale.py: %s not found (build the project first)" % exe)
    tmp = tempfile.mkdtemp(prefix="cpath-scale-")
    if a.comm:
        print("| ranks | pairs | gathered bytes (rank 0) | gathered bytes/rank | dense P x P (16 B/entry) "
              "| communication step (s) |")
        print("|---:|---:|---:|---:|---:|---:|")
    else:
        print("| ranks | events/rank | trace bytes/rank (max) | analysis heap/rank (max) | post-processing (s) | elapsed (s) | path hand-offs |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in [int(x) for x in a.ranks.split(",")]:
        out = os.path.join(tmp, "np%d" % n)
        cmd = mpirun_cmd(n, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": "report=0,sample=0,out=" + out},
                         ["--mca", "mpi_yield_when_idle", "1"]) + [exe, str(a.iters)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=1800)
        r = json.load(open(os.path.join(out, "report.json")))
        if a.comm:
            c = r["communication"]
            print("| %d | %d | %d | %.1f | %d | %.4f |" % (
                n, c["pairs"], c["gathered_bytes"], c["gathered_bytes"] / n, 16 * n * n,
                r["analysis"]["phases"].get("communication matrices", 0)))
            continue
        print("| %d | %d | %d | %d | %.3f | %.3f | %d |" % (
            n, r["trace"]["events_total"] // n, r["trace"]["bytes_per_rank_max"],
            r["analysis"]["memory_per_rank_max_bytes"], r["analysis"]["postprocess_s"], r["elapsed_s"],
            r["critical_path"]["handoffs"]))


if __name__ == "__main__":
    main()
