#!/usr/bin/env bash
# README command 2: run every test (unit + MPI integration) of the build in ./build, then the
# tests labelled "mpich" (tests/mpich_subset.cmake: those whose outcome depends on the MPI
# implementation) against MPICH in ./build-mpich when scripts/setup.sh made it (docs/mpich.md).
# The whole suite twice took most of CI's time budget; CPATH_MPICH_ALL=1 runs all of it again.
# A test is run a second time before it counts as failed (--repeat until-pass:2): 4 ranks share
# 2 cores here, and a rank descheduled for tens of ms at the wrong moment moves a built-in
# delay by more than a known-answer test allows. A wrong answer fails both times.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CPATH_BUILD_DIR:-$here/build}
ctest --test-dir "$build" --output-on-failure -j 2 --repeat until-pass:2 "$@"
rc=$?
if [ -z "${CPATH_BUILD_DIR:-}" ] && [ -f "$here/build-mpich/CTestTestfile.cmake" ]; then
  subset=(-L mpich)
  [ "${CPATH_MPICH_ALL:-0}" = 1 ] && subset=()
  echo "==== against MPICH ($here/build-mpich): ${subset[*]:-the whole suite}"
  ctest --test-dir "$here/build-mpich" --output-on-failure -j 2 --repeat until-pass:2 "${subset[@]}" "$@"
  rc2=$?
  [ $rc -ne 0 ] || rc=$rc2
fi
exit $rc
