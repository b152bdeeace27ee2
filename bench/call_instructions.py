#!/usr/bin/env python3
"""Instructions libcpath's wrappers add per MPI call, counted by callgrind: deterministic, so
valid on a loaded machine where bench/call_overhead.py's nanoseconds are not.

  bench/call_instructions.py --build build [--iters 20000] [--options stack=4] [--depth 30]

Runs bench/call_overhead on 2 ranks, each under `valgrind --tool=callgrind`, with libcpath
preloaded (sampling and analysis off), and prints per call: the wrapper's inclusive
instructions minus those of the PMPI_ call it makes (what the wrapper adds, everything in it is
inlined: two clock reads, request bookkeeping, the record append), for rank 1's file.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpilaunch import mpirun_cmd  # noqa: E402

CALLS = ("Send", "Recv", "Isend", "Irecv", "Waitall", "Allreduce")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--options", default="", help="more libcpath options, e.g. stack=4,skip=libc.so")
    ap.add_argument("--depth", type=int, default=0, help="extra stack frames above every MPI call")
    a = ap.parse_args()
    exe = os.path.abspath(os.path.join(a.build, "bin", "call_overhead"))
    lib = os.path.abspath(os.path.join(a.build, "lib", "libcpath.so"))
    tmp = tempfile.mkdtemp(prefix="cpath-callgrind-")
    env = {"LD_PRELOAD": lib, "LIBCPATH_OPTIONS": "report=0,sample=0,analysis=0,timeline=0" + ("," + a.options if a.options else "")}
    cmd = mpirun_cmd(2, env) + ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s/cg.%%p" % tmp,
                                exe, str(a.iters), str(a.depth)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=3600)
    files = sorted(glob.glob(os.path.join(tmp, "cg.*")))
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", files[-1]],
                         capture_output=True, text=True, check=True).stdout
    inc = {}
    # A function may be listed twice, with and without its object (callgrind files part of it
    # under the absolute source path): the larger inclusive count is the whole function.
    for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+(\S+?):(P?MPI_\w+)(?: \[([^\]]+)\])?$", ann, re.M):
        ours = "libcpath" in (m.group(4) or "") or "_wrappers.cpp" in m.group(2)
        key = (m.group(3), ours)
        inc[key] = max(inc.get(key, 0), int(m.group(1).replace(",", "")))
    print("| call | calls | instructions added per call (wrapper minus PMPI) |")
    print("|---|---:|---:|")
    for c in CALLS:
        w, p = inc.get(("MPI_" + c, True)), inc.get(("PMPI_" + c, False))
        if w and p:
            print("| MPI_%s | %d | %.0f |" % (c, a.iters, (w - p) / a.iters))
    # With skip=/stack= the walk is a function of its own (the wrapper table above does not
    # include it: callgrind files the inlined call under call_path.h): per walk, all of it and
    # the part inside libunwind's backtrace.
    tree = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=caller", "--threshold=100", files[-1]],
                          capture_output=True, text=True, check=True).stdout
    walk = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\*\s+\S+:cpath::call_site_walk", tree, re.M)
    if walk:
        block = tree[:walk.start()].rsplit("\n\n", 1)[-1]
        calls = sum(int(n.replace(",", "")) for n in re.findall(r"\(([\d,]+)x\)", block))
        unw = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\S+:backtrace \[\S*libunwind", ann, re.M)
        total = int(walk.group(1).replace(",", ""))
        if calls:
            print("\ncall-site walk: %d walks, %.0f instructions per walk, of which libunwind's backtrace %.0f"
                  % (calls, total / calls, int(unw.group(1).replace(",", "")) / calls if unw else float("nan")))
    print("\n(plus two TSC reads per call; %d iterations; callgrind files in %s)" % (a.iters, tmp))


if __name__ == "__main__":
    main()
