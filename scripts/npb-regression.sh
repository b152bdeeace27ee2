#!/usr/bin/env bash
# Regression run of the NAS Parallel Benchmarks BT and LU under libcpath.
#
#   scripts/npb-regression.sh NPB_DIR [--classes S,W] [--np 4] [--runs 3] [--build BUILD] [--work DIR]
#
# NPB_DIR is a user's NPB 3.x MPI source tree (the directory holding BT/, LU/, config/). The
# tree is copied and built in a work directory (NPB_DIR is not modified) with mpif90. For each
# benchmark and class it runs the binary on --np ranks under libcpath and checks
# (scripts/check_report.py): "Verification = SUCCESSFUL", critical path length = elapsed within
# 1%, and a Fortran solver routine (not an MPI progress function) on top of the critical-path
# hotspot table. Then it prints the overhead table (bench/overhead.py). Exit status 0 only if
# every check passed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

npb=${1:-}
if [ -z "$npb" ] || [ "$npb" = "-h" ] || [ "$npb" = "--help" ]; then
  usage
  [ -n "$npb" ] && exit 0
  echo "npb-regression: give the path of an NPB 3.x MPI source tree (e.g. .../NPB3.4-MPI)" >&2
  exit 2
fi
shift
classes=S,W
np=4
runs=3
build=${CPATH_BUILD_DIR:-$here/build}
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --classes|--class) classes=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "npb-regression: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ ! -d "$npb" ]; then
  echo "npb-regression: NPB_DIR '$npb' does not exist" >&2
  exit 2
fi
for d in BT LU config; do
  if [ ! -d "$npb/$d" ]; then
    echo "npb-regression: '$npb' is not an NPB MPI tree (no $d/ directory)" >&2
    exit 2
  fi
done
lib=$build/lib/libcpath.so
if [ ! -f "$lib" ]; then
  echo "npb-regression: $lib not found; run scripts/setup.sh first" >&2
  exit 2
fi
command -v mpif90 >/dev/null || { echo "npb-regression: mpif90 not found" >&2; exit 2; }
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)

work=${work:-$(mktemp -d /tmp/cpath-npb.XXXXXX)}
mkdir -p "$work"
src=$work/npb
rm -rf "$src"
cp -r "$npb" "$src"
# make.def: the user's if present, else from the template with mpif90 and debug symbols (for
# symbolised hotspots); gfortran >= 10 needs -fallow-argument-mismatch for NPB's MPI calls.
if [ ! -f "$src/config/make.def" ]; then
  if [ ! -f "$src/config/make.def.template" ]; then
    echo "npb-regression: no config/make.def or config/make.def.template in $npb" >&2
    exit 2
  fi
  extra="-g -fno-omit-frame-pointer"
  if mpif90 --version 2>/dev/null | grep -q "GNU Fortran"; then
    major=$(mpif90 -dumpversion | cut -d. -f1)
    [ "${major:-0}" -ge 10 ] && extra="$extra -fallow-argument-mismatch"
  fi
  sed -e "s|^MPIFC[[:space:]]*=.*|MPIFC = mpif90|" \
      -e "s|^FLINK[[:space:]]*=.*|FLINK = \$(MPIFC)|" \
      -e "s|^FFLAGS[[:space:]]*=\(.*\)|FFLAGS =\1 $extra|" \
      "$src/config/make.def.template" > "$src/config/make.def"
fi
mkdir -p "$src/bin"

status=0
table=()
IFS=, read -r -a class_list <<< "$classes"
for bench in bt lu; do
  for cls in "${class_list[@]}"; do
    exe=$src/bin/$bench.$cls.x
    echo "== $bench class $cls: building"
    if ! make -C "$src" "$bench" CLASS="$cls" NPROCS="$np" > "$work/build-$bench.$cls.log" 2>&1 || [ ! -x "$exe" ]; then
      # NPB 3.3 names binaries with the process count.
      [ -x "$src/bin/$bench.$cls.$np" ] && exe=$src/bin/$bench.$cls.$np
    fi
    if [ ! -x "$exe" ]; then
      echo "npb-regression: building $bench class $cls failed (log: $work/build-$bench.$cls.log)" >&2
      status=1
      continue
    fi
    out=$work/report-$bench.$cls
    rm -rf "$out"
    echo "== $bench class $cls: running on $np ranks under libcpath"
    if ! mpirun --oversubscribe "${root[@]}" -np "$np" -x LD_PRELOAD="$lib" -x LIBCPATH_OPTIONS="out=$out,report=0" \
         "$exe" > "$work/stdout-$bench.$cls.txt" 2> "$work/stderr-$bench.$cls.txt"; then
      echo "npb-regression: $bench class $cls exited with an error (see $work/stderr-$bench.$cls.txt)" >&2
      status=1
      continue
    fi
    if ! python3 "$here/scripts/check_report.py" "$out" --stdout "$work/stdout-$bench.$cls.txt" \
         --app-module "$(basename "$exe")"; then
      status=1
    fi
    table+=("$bench.$cls:$exe")
  done
done

echo
echo "== overhead ($runs runs each, alternating; elapsed = NPB's own 'Time in seconds')"
first=1
for entry in "${table[@]}"; do
  name=${entry%%:*}
  exe=${entry#*:}
  hdr=()
  [ $first = 1 ] && hdr=(--header)
  first=0
  python3 "$here/bench/overhead.py" --lib "$lib" --np "$np" --runs "$runs" --name "$name" "${hdr[@]}" -- "$exe" || status=1
done
echo
[ $status = 0 ] && echo "npb-regression: all checks passed (work directory: $work)" \
                || echo "npb-regression: FAILED (work directory: $work)"
exit $status
