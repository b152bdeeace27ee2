#!/usr/bin/env python3
"""cpath-ref must not share analysis code with what it checks: no function defined in the
replay or analysis libraries, nor the communicator resolution and unification of src/, may be
linked into it (only the trace-file reader, the record decoder and the call table).

usage: ref_independent.py CPATH_REF LIB.a..."""
import subprocess
import sys

CORE_FORBIDDEN = ("cpath::RankTrace::comm_record", "cpath::unify_communicators", "cpath::assign_local_keys",
                  "cpath::record_key", "cpath::dup_key", "cpath::intern_group")


def defined(path):
    out = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        p = line.split(None, 2)
        if len(p) == 3 and p[1] in "TtWw" and "(anonymous namespace)" not in p[2]:
            names.add(p[2].split("(")[0])
    return names


def main():
    ref = defined(sys.argv[1])
    forbidden = set(CORE_FORBIDDEN)
    for lib in sys.argv[2:]:
        forbidden |= {n for n in defined(lib) if n.startswith("cpath::")}
    shared = sorted(ref & forbidden)
    if shared:
        print("FAIL: cpath-ref links analysis code it should check:\n  " + "\n  ".join(shared[:20]))
        return 1
    print("PASS: cpath-ref shares none of %d analysis functions" % len(forbidden))
    return 0


if __name__ == "__main__":
    sys.exit(main())
