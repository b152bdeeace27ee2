#!/usr/bin/env python3
"""libcpath.so lives in other people's programs: it exports only the MPI entry points (C and
Fortran), pthread_create, sigaction and signal (pmu/signal_hook.cpp), dlclose (pmu/dl_hook.cpp) and the region API of cpath.h; the stub exports exactly the region
API, so both define the same user-visible names.

  exports_test.py LIBCPATH_SO LIBCPATH_STUB_SO
"""
import re
import subprocess
import sys

REGION_API = {"cpath_region_begin", "cpath_region_end", "cpath_phase"}
FORTRAN = {f % n for n in REGION_API for f in ("%s_", "%s__")} | {n.upper() for n in REGION_API}


def defined(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip() and l.split()[-2] not in ("A",)}


def main():
    lib, stub = sys.argv[1], sys.argv[2]
    syms = defined(lib)
    allowed = re.compile(r"^(MPI_\w+|mpi_\w+|pthread_create|sigaction|signal|dlclose)$")
    bad = sorted(s for s in syms if not allowed.match(s) and s not in REGION_API | FORTRAN)
    if bad:
        print("FAIL: libcpath.so exports %d unexpected symbols: %s" % (len(bad), bad[:20]))
        sys.exit(1)
    missing = (REGION_API | FORTRAN) - syms
    if missing:
        print("FAIL: libcpath.so lacks %s" % sorted(missing))
        sys.exit(1)
    stub_syms = defined(stub)
    if stub_syms != REGION_API | FORTRAN:
        print("FAIL: the stub exports %s" % sorted(stub_syms ^ (REGION_API | FORTRAN)))
        sys.exit(1)
    print("PASS: %d symbols exported by libcpath.so, the region API by both" % len(syms))


if __name__ == "__main__":
    main()
