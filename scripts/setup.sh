#!/usr/bin/env bash
# README command 1: install the Debian 12 packages libcpath needs, then configure
# and build into ./build. Safe to run again. Set CPATH_SKIP_APT=1 to skip apt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(build-essential cmake python3 pkg-config gfortran
      openmpi-bin libopenmpi-dev libpfm4-dev libunwind-dev libdw-dev libelf-dev
      googletest libgtest-dev libgmock-dev libscotch-dev
      dpkg-dev file)  # dpkg-dev, file: the Debian package (cpack -G DEB, tests/install)
pkgs+=(mpich libmpich-dev)  # the second MPI the suite runs against (docs/mpich.md)
pkgs+=(chromium)  # headless browser test of report.html (tests/report/html_check.py)
if [ "${CPATH_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo_cmd apt-get update -q
    $sudo_cmd apt-get install -y -q "${missing[@]}"
  fi
fi
build=${CPATH_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} ${CPATH_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
# The same sources against MPICH 4.0 in a second build directory (scripts/test.sh runs both),
# unless a build directory was named or CPATH_MPICH=0.
if [ -z "${CPATH_BUILD_DIR:-}" ] && [ "${CPATH_MPICH:-1}" != 0 ] && command -v mpicc.mpich >/dev/null; then
  cmake -S "$here" -B "$here/build-mpich" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} \
    -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich -DMPI_Fortran_COMPILER=mpif90.mpich \
    -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -DCPATH_MPI_FREE_UNIT_TESTS=OFF
  cmake --build "$here/build-mpich" -j "$(nproc)"
fi
