#!/usr/bin/env python3
"""What finding hosts and aligning clocks costs, at MPI_Init and at MPI_Finalize.

  bench/clock_startup.py --build build [--ranks 4,8,16,32] [--runs 5]

Runs bench/halo_bench (a few iterations) under libcpath at each rank count, in three clock
set-ups: all ranks on one clock (this machine: nothing measured at MPI_Init beyond one
exchange per tree edge, no alignment), two simulated hosts (sim_hosts=2: leaders aligned),
and one simulated host per rank (sim_hosts=P: every rank aligned, as before issue 8). Prints
a Markdown table of medians: the MPI_Init measurement (slowest rank, analysis.clock.startup_s)
and the alignment at MPI_Finalize (host discovery by MPI_Comm_split + leaders' ping-pong +
composition, after the first collective; slowest rank, analysis.clock.finalize_s).
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--ranks", default="4,8,16,32")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "halo_bench")
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    if not os.path.exists(exe):
        sys.exit("clock_startup.py: %s not found (build the project first)" % exe)
    tmp = tempfile.mkdtemp(prefix="cpath-clock-")
    print("| ranks | set-up | hosts | MPI_Init measurement (ms) | finalize clock alignment (ms) |")
    print("|---:|---|---:|---:|---:|")
    for n in [int(x) for x in a.ranks.split(",")]:
        for label, opt in (("one clock", ""), ("2 simulated hosts", "sim_hosts=2"),
                           ("every rank a host", "sim_hosts=%d" % n)):
            init, fin, hosts = [], [], 0
            for k in range(a.runs):
                out = os.path.join(tmp, "np%d-%s-%d" % (n, opt or "default", k))
                opts = "report=0,sample=0,analysis=0,out=" + out + ("," + opt if opt else "")
                cmd = mpirun_cmd(n, {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": opts},
                                 ["--mca", "mpi_yield_when_idle", "1"]) + [exe, "5"]
                subprocess.run(cmd, check=True, capture_output=True, timeout=600)
                r = json.load(open(os.path.join(out, "report.json")))
                c = r["analysis"]["clock"]
                hosts = c["hosts"]
                init.append(c["startup_s"] * 1e3)
                fin.append(c["finalize_s"] * 1e3)
            print("| %d | %s | %d | %.3f | %.3f |" % (n, label, hosts, statistics.median(init), statistics.median(fin)))


if __name__ == "__main__":
    main()
