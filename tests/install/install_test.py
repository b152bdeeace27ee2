#!/usr/bin/env python3
"""Installs libcpath into a temporary prefix, moves the prefix elsewhere (relocatable), and from
outside the source tree builds a user's MPI program with regions twice, with
find_package(libcpath) and with pkg-config; runs both without libcpath (the stub library) and
under `cpath mpirun`, and finds the report with the program's regions in it.

  install_test.py --build BUILD --src SRC --work DIR --mpicc MPICC --mpirun MPIRUN [--cmake CMAKE]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fresh_dir, mpirun_args, must, run, without_report  # noqa: E402

EXPECTED = [
    "bin/cpath", "bin/cpath-read", "bin/cpath-ref", "include/cpath.h",
    "lib/libcpath.so", "lib/libcpath.so.0", "lib/libcpath.so.0.2.0",
    "lib/libcpath_stub.so", "lib/libcpath_stub.so.0",
    "lib/cmake/libcpath/libcpathConfig.cmake", "lib/cmake/libcpath/libcpathConfigVersion.cmake",
    "lib/cmake/libcpath/libcpathTargets.cmake", "lib/pkgconfig/libcpath.pc",
    "share/doc/libcpath/README.md", "share/doc/libcpath/LICENSE", "share/doc/libcpath/report.md",
]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def check_layout(prefix, forbidden):
    for rel in EXPECTED:
        if not os.path.lexists(os.path.join(prefix, rel)):
            fail("installed tree lacks %s" % rel)
    soname = must(["readelf", "-d", os.path.join(prefix, "lib/libcpath.so")], "readelf").stdout
    if "Library soname: [libcpath.so.0]" not in soname:
        fail("libcpath.so has no SONAME libcpath.so.0:\n" + soname)
    if os.readlink(os.path.join(prefix, "lib/libcpath.so")) != "libcpath.so.0":
        fail("lib/libcpath.so is not the development link to libcpath.so.0")
    # Relocatable: no installed file names the build tree, the source tree or the prefix it was
    # installed into (ELF files: no run path into them; debug information may name sources).
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            if is_elf(path):
                dyn = run(["readelf", "-d", path]).stdout
                for line in dyn.splitlines():
                    if "RPATH" in line or "RUNPATH" in line:
                        for f in forbidden:
                            if f in line:
                                fail("%s has a run path into %s: %s" % (path, f, line.strip()))
                continue
            text = open(path, "rb").read().decode("utf-8", "replace")
            for f in forbidden:
                if f in text:
                    fail("%s names %s: not relocatable" % (os.path.relpath(path, prefix), f))


def report_dir_check(out_dir, what):
    path = os.path.join(out_dir, "report.json")
    if not os.path.exists(path):
        fail("%s: no report.json in %s" % (what, out_dir))
    rep = json.load(open(path))
    rows = {r["region"]: r for r in rep["critical_path"]["by_region"]}
    if "install-solve" not in rows:
        fail("%s: region install-solve is not in the report: %s" % (what, sorted(rows)))
    if rows["install-solve"]["compute_s"] < 0.06:
        fail("%s: install-solve holds %g s of path compute (3 x 30 ms expected)" % (what, rows["install-solve"]["compute_s"]))
    if "install-phase" not in {p["phase"] for p in rep["critical_path"]["by_phase"]}:
        fail("%s: phase install-phase missing" % what)


def run_both_ways(exe, prefix, mpirun, work, what):
    """The same binary without libcpath (stub), then under `cpath mpirun`."""
    job = mpirun_args(mpirun, 2) + [exe]
    base = run(job, cwd=work)
    if base.returncode != 0 or "region_app: sum 1 on 2 ranks" not in base.stdout:
        fail("%s without libcpath: exit %d\n%s\n%s" % (what, base.returncode, base.stdout, base.stderr[-2000:]))
    if "==== libcpath" in base.stdout:
        fail("%s without libcpath printed a report: the stub is not a no-op or libcpath was linked" % what)
    out_dir = os.path.join(work, "report-" + what)
    env = dict(os.environ)
    env.pop("LIBCPATH_OPTIONS", None)
    r = run([os.path.join(prefix, "bin/cpath"), "-o", "out=%s,sample=0" % out_dir] + job, cwd=work, env=env)
    if r.returncode != 0:
        fail("%s under cpath: exit %d\n%s\n%s" % (what, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    if "==== libcpath report" not in r.stdout or "install-solve" not in r.stdout:
        fail("%s under cpath: no report with the region on stdout:\n%s" % (what, r.stdout[-3000:]))
    if without_report(r.stdout) != without_report(base.stdout):
        fail("%s: the program's own output differs under cpath" % what)
    report_dir_check(out_dir, what)
    shown = must([os.path.join(prefix, "bin/cpath"), "show", out_dir], "cpath show")
    if shown.stdout != open(os.path.join(out_dir, "report.txt")).read():
        fail("cpath show does not print report.txt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpicc", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--cmake", default="cmake")
    a = ap.parse_args()
    work = fresh_dir(os.path.abspath(a.work))
    stage = os.path.join(work, "stage")
    must([a.cmake, "--install", a.build, "--prefix", stage], "cmake --install")
    prefix = os.path.join(work, "moved", "libcpath")
    os.makedirs(os.path.dirname(prefix))
    shutil.move(stage, prefix)
    check_layout(prefix, [os.path.abspath(a.build), os.path.abspath(a.src), stage])

    # A user's project, outside the source tree.
    app = os.path.join(work, "app")
    shutil.copytree(os.path.join(a.src, "tests/install/app"), app)

    # 1. CMake: find_package(libcpath), target libcpath::cpath.
    bdir = os.path.join(app, "build-cmake")
    must([a.cmake, "-S", app, "-B", bdir, "-DCMAKE_PREFIX_PATH=" + prefix, "-DMPI_C_COMPILER=" + a.mpicc,
          "-DCMAKE_BUILD_TYPE=Release"], "configuring the user's project with find_package(libcpath)")
    must([a.cmake, "--build", bdir], "building the user's project")
    exe_cmake = os.path.join(bdir, "region_app")
    needed = must(["readelf", "-d", exe_cmake], "readelf").stdout
    if "libcpath_stub.so.0" not in needed or "[libcpath.so" in needed:
        fail("the program should need libcpath_stub.so.0 only:\n" + needed)
    run_both_ways(exe_cmake, prefix, a.mpirun, app, "find_package")

    # 2. pkg-config libcpath (found through PKG_CONFIG_PATH; prefix from ${pcfiledir}).
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig"))
    flags = must(["pkg-config", "--cflags", "--libs", "libcpath"], "pkg-config", env=env).stdout.split()
    libdir = must(["pkg-config", "--variable=libdir", "libcpath"], "pkg-config", env=env).stdout.strip()
    preload = must(["pkg-config", "--variable=preload", "libcpath"], "pkg-config", env=env).stdout.strip()
    if os.path.realpath(libdir) != os.path.realpath(os.path.join(prefix, "lib")):
        fail("pkg-config libdir %s is not the moved prefix's" % libdir)
    if os.path.realpath(preload) != os.path.realpath(os.path.join(prefix, "lib/libcpath.so")):
        fail("pkg-config preload variable %s" % preload)
    version = must(["pkg-config", "--modversion", "libcpath"], "pkg-config", env=env).stdout.strip()
    if version != "0.2.0":
        fail("pkg-config version %s" % version)
    exe_pc = os.path.join(app, "region_app_pc")
    must([a.mpicc, "-O1", "-o", exe_pc, os.path.join(app, "region_app.c")] + flags + ["-Wl,-rpath," + libdir],
         "building with pkg-config")
    run_both_ways(exe_pc, prefix, a.mpirun, app, "pkg-config")

    # 3. Without any library: the header alone with -DCPATH_DISABLE.
    exe_off = os.path.join(app, "region_app_off")
    must([a.mpicc, "-DCPATH_DISABLE", "-o", exe_off, os.path.join(app, "region_app.c"),
          "-I" + os.path.join(prefix, "include")], "building with -DCPATH_DISABLE")
    r = run(mpirun_args(a.mpirun, 2) + [exe_off], cwd=app)
    if r.returncode != 0 or "region_app: sum 1" not in r.stdout:
        fail("the CPATH_DISABLE build does not run: %s" % r.stderr[-2000:])
    print("PASS: installed, relocated, built with find_package and pkg-config, ran with and without libcpath")


if __name__ == "__main__":
    main()
