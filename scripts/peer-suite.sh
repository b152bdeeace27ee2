#!/usr/bin/env bash
# Runs a peer MPI library's own test suite plain and under libcpath, and says which tests the
# library breaks.
#
#   scripts/peer-suite.sh SUITE_DIR [DIR...] [--lib LIB] [--work WORK] [--options OPTS]
#                         [--timeout-scale X] [--max-np N] [--rerun N] [--mpirun CMD]
#
# SUITE_DIR is a configured and built copy of MPICH's test/mpi (or a suite laid out the same
# way: each directory holds a `testlist` of "program nprocs [key=value...]" lines or names of
# subdirectories, and a passing program prints " No Errors"). Nothing of the suite lives in
# this repository; build it yourself under /tmp, e.g. from an MPICH 3.4.x source tree:
#   cd test/mpi && ./autogen.sh && autoreconf -if   (confdb/ and version.m4 copied from the tree)
#   CC=mpicc CXX=mpicxx F77=mpif77 FC=mpif90 FFLAGS=-fallow-argument-mismatch \
#     FCFLAGS=-fallow-argument-mismatch ./configure --disable-spawn --disable-dtpools \
#     --disable-ft-tests --disable-checkerrors --disable-perftest --enable-strictmpi
#   make -C util && make -C pt2pt ...
# DIRs are the directories to run (default: pt2pt coll comm topo rma f90). They run one after
# the other, one test at a time: the machine is shared.
#
# Every test runs twice, plain and with LD_PRELOAD=LIB and LIBCPATH_OPTIONS="OPTS,out=..."
# (default OPTS: report=file,quiet=1, the harness-friendly setting of docs/options.md). A
# test passes as MPICH's runtests decides: exit status 0, within its time limit, and its
# output (stdout and stderr together) is " No Errors" and nothing else. A test that passes
# plain and fails with the library is run again both ways (--rerun times, default 1) so that
# a loaded machine is not blamed on the library; the ones that still fail are printed with
# their output. Logs stay in WORK (default /tmp/peer-suite-<pid>). Exit status 0 only if no
# test failed because of the library.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
exec python3 "$here/scripts/peer_suite.py" --default-lib "${CPATH_BUILD_DIR:-$here/build}/lib/libcpath.so" "$@"
