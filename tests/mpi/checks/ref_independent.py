#!/usr/bin/env python3
"""cpath-ref's critical-path analysis must not share analysis code with what it checks: its
object files may reference no function defined in the replay or analysis libraries, nor the
communicator resolution and unification of src/; and its sources may not call the inline
helpers of the trace structures that do the same (times on the aligned clock, communicator
records, world ranks). It may use the trace-file reader, the record decoder and the call table.

usage: ref_independent.py --sources FILE... --objects OBJ... --libs LIB.a..."""
import re
import subprocess
import sys

CORE_FORBIDDEN = ("cpath::RankTrace::comm_record", "cpath::unify_communicators", "cpath::assign_local_keys",
                  "cpath::record_key", "cpath::dup_key", "cpath::intern_group")
SOURCE_FORBIDDEN = re.compile(r"\.global_ns\(|\.local_ns\(|\.comm_record\(|comm_table\.|\.to_global\(|"
                              r"\bbuild_timeline\(|\bbuild_ops\(|#include \"(timeline|ops|pag|p2p_\w+|collective_replay)\.h\"")


def symbols(path, which):
    out = subprocess.run(["nm", "-C", which, path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        p = line.split(None, 2) if which == "--defined-only" else line.split(None, 1)
        if which == "--defined-only":
            if len(p) == 3 and p[1] in "TtWw" and "(anonymous namespace)" not in p[2]:
                names.add(p[2].split("(")[0])
        elif len(p) == 2 and p[0] == "U":
            names.add(p[1].split("(")[0])
    return names


def main():
    args, key = {"--sources": [], "--objects": [], "--libs": []}, None
    for a in sys.argv[1:]:
        if a in args:
            key = a
        else:
            args[key].append(a)
    forbidden = set(CORE_FORBIDDEN)
    for lib in args["--libs"]:
        forbidden |= {n for n in symbols(lib, "--defined-only") if n.startswith("cpath::")}
    used = set()
    for obj in args["--objects"]:
        used |= symbols(obj, "--undefined-only")
    bad = sorted(used & forbidden)
    for src in args["--sources"]:
        for i, line in enumerate(open(src), 1):
            if SOURCE_FORBIDDEN.search(line):
                bad.append("%s:%d: %s" % (src, i, line.strip()))
    if bad:
        print("FAIL: cpath-ref uses analysis code it should check:\n  " + "\n  ".join(bad[:20]))
        return 1
    if not args["--objects"]:
        print("FAIL: no object files to check")
        return 1
    print("PASS: %d object files reference none of %d analysis functions" % (len(args["--objects"]), len(forbidden)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
