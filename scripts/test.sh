#!/usr/bin/env bash
# README command 2: run every test (unit + MPI integration) of the build in ./build, then the
# same suite against MPICH in ./build-mpich when scripts/setup.sh made it (docs/mpich.md).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CPATH_BUILD_DIR:-$here/build}
ctest --test-dir "$build" --output-on-failure -j 2 "$@"
rc=$?
if [ -z "${CPATH_BUILD_DIR:-}" ] && [ -f "$here/build-mpich/CTestTestfile.cmake" ]; then
  echo "==== the same suite against MPICH ($here/build-mpich)"
  ctest --test-dir "$here/build-mpich" --output-on-failure -j 2 "$@"
  rc2=$?
  [ $rc -ne 0 ] || rc=$rc2
fi
exit $rc
