#!/usr/bin/env bash
# README command 1: install the Debian 12 packages libcpath needs, then configure
# and build into ./build. Safe to run again. Set CPATH_SKIP_APT=1 to skip apt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(build-essential cmake python3 pkg-config gfortran
      openmpi-bin libopenmpi-dev libpfm4-dev libunwind-dev libdw-dev libelf-dev
      googletest libgtest-dev libgmock-dev libscotch-dev
      dpkg-dev file)  # dpkg-dev, file: the Debian package (cpack -G DEB, tests/install)
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
