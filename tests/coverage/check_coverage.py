#!/usr/bin/env python3
"""Coverage of the MPI standard: every C function of wrappers/mpi_standard_functions.txt is
either wrapped (wrappers/mpi_functions.spec, large-count _c variants derived by the generator)
or left out with a reason (wrappers/mpi_not_wrapped.txt). Also fails on a spec entry that is
not a standard function (a typo wraps nothing) and on an exclusion that matches a wrapped
function or nothing at all (stale).

usage: check_coverage.py <source dir> [<build dir>]
With a build directory, also prints how many of the listed functions this build wraps (the
MPI library decides which MPI-4.0 functions exist)."""
import fnmatch
import os
import re
import subprocess
import sys


def main():
    src = sys.argv[1]
    w = os.path.join(src, "wrappers")
    standard = {}
    for line in open(os.path.join(w, "mpi_standard_functions.txt")):
        line = line.split("#", 1)[0].split()
        if line:
            standard[line[0]] = line[1] if len(line) > 1 else "?"
    excl = []
    for line in open(os.path.join(w, "mpi_not_wrapped.txt")):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) < 2 or not parts[1].strip():
            print("FAIL: exclusion without a reason: %s" % line.strip())
            return 1
        excl.append((parts[0], parts[1].strip()))
    out = subprocess.run([sys.executable, os.path.join(w, "generate_wrappers.py"), "--spec",
                          os.path.join(w, "mpi_functions.spec"), "--out", "/nonexistent", "--list"],
                         check=True, capture_output=True, text=True).stdout
    wrapped = set(out.split())
    fails = []
    for name in sorted(standard):
        if name in wrapped:
            continue
        if not any(fnmatch.fnmatchcase(name, pat) for pat, _ in excl):
            fails.append("not wrapped and not listed in mpi_not_wrapped.txt: %s (MPI-%s)" % (name, standard[name]))
    for name in sorted(wrapped - set(standard)):
        fails.append("wrapped but not in the standard's list (typo?): %s" % name)
    for pat, why in excl:
        hit = [n for n in wrapped if fnmatch.fnmatchcase(n, pat)]
        if hit:
            fails.append("exclusion %s matches wrapped functions: %s" % (pat, " ".join(sorted(hit))))
        if not any(fnmatch.fnmatchcase(n, pat) for n in standard):
            fails.append("exclusion %s matches no function of the standard's list (stale)" % pat)
    n31 = sum(1 for v in standard.values() if v == "3.1")
    n40 = len(standard) - n31
    w31 = sum(1 for n, v in standard.items() if v == "3.1" and n in wrapped)
    w40 = sum(1 for n, v in standard.items() if v != "3.1" and n in wrapped)
    print("standard list: %d functions (%d MPI-3.1, %d new in MPI-4.0)" % (len(standard), n31, n40))
    print("spec wraps %d of the MPI-3.1 functions and %d of the MPI-4.0 ones; %d left out with a reason"
          % (w31, w40, len(standard) - w31 - w40))
    if len(sys.argv) > 2:
        doc = os.path.join(sys.argv[2], "generated", "wrapped_functions.md")
        if os.path.exists(doc):
            built = set(re.findall(r"\| (MPI_\w+) \|", open(doc).read()))
            miss40 = sorted(n for n, v in standard.items() if v != "3.1" and n in wrapped and n not in built)
            print("this build wraps %d functions (C); MPI-4.0 functions of the spec this MPI library lacks: %d"
                  % (len(built), len(miss40)))
            bad = sorted(n for n, v in standard.items() if v == "3.1" and n in wrapped and n not in built)
            if bad:
                fails.append("MPI-3.1 functions of the spec not wrapped by this build: " + " ".join(bad))
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
