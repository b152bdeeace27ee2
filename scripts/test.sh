#!/usr/bin/env bash
# README command 2: run every test (unit + MPI integration) of the build in ./build, then the
# whole suite again against MPICH in ./build-mpich when scripts/setup.sh made it (docs/mpich.md),
# except the tests in tests/mpich_skip.txt, whose reasons it prints (offline tests that never
# load an MPI library, and two that measure something MPICH's spinning ranks make meaningless on
# 2 cores). CPATH_MPICH_SUBSET=1 runs only the tests labelled "mpich" there (a quick check).
# A test is run a second time before it counts as failed (--repeat until-pass:2): 4 ranks share
# 2 cores here, and a rank descheduled for tens of ms at the wrong moment moves a built-in
# delay by more than a known-answer test allows. A wrong answer fails both times.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CPATH_BUILD_DIR:-$here/build}
ctest --test-dir "$build" --output-on-failure -j 2 --repeat until-pass:2 "$@"
rc=$?
if [ -z "${CPATH_BUILD_DIR:-}" ] && [ -f "$here/build-mpich/CTestTestfile.cmake" ]; then
  if [ "${CPATH_MPICH_SUBSET:-0}" = 1 ]; then
    subset=(-L mpich)
    echo "==== against MPICH ($here/build-mpich): the tests labelled mpich"
  else
    skip=$(grep -v '^#' "$here/tests/mpich_skip.txt" | awk 'NF {print $1}' | paste -sd'|')
    subset=(-E "^(${skip})\$")
    echo "==== against MPICH ($here/build-mpich): the whole suite except (tests/mpich_skip.txt):"
    grep -v '^#' "$here/tests/mpich_skip.txt" | awk 'NF {n=$1; $1=""; printf "  SKIPPED under MPICH: %s:%s\n", n, $0}'
  fi
  ctest --test-dir "$here/build-mpich" --output-on-failure -j 2 --repeat until-pass:2 "${subset[@]}" "$@"
  rc2=$?
  [ $rc -ne 0 ] || rc=$rc2
fi
exit $rc
