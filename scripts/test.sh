#!/usr/bin/env bash
# README command 2: run every test (unit + MPI integration) of the build in ./build.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CPATH_BUILD_DIR:-$here/build}
ctest --test-dir "$build" --output-on-failure -j 2 "$@"
