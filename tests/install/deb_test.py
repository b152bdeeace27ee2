#!/usr/bin/env python3
"""The Debian package.

  deb_test.py build --build BUILD --work DIR --version V
      cpack -G DEB; `dpkg-deb --contents` lists the expected files, `dpkg-deb -f` names the
      packages of the libraries libcpath.so needs (MPI, libdw, libpfm4). Skips (exit 77, with
      the reason) without cpack's DEB tools.
  deb_test.py apt --work DIR --version V --mpicc MPICC --mpirun MPIRUN --src SRC
      `apt-get install ./libcpath_V_ARCH.deb`, builds a program with the installed pkg-config
      file, runs one job through /usr/bin/cpath and finds the regions in the report; removes
      the package again (apt-get purge) if it was not installed before. Skips (exit 77, with the reason) when
      not root or without apt-get.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fresh_dir, mpirun_args, must, run  # noqa: E402

SKIP = 77


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def deb_path(work, version):
    found = glob.glob(os.path.join(work, "libcpath_%s_*.deb" % version))
    if len(found) != 1:
        fail("expected one libcpath_%s_<arch>.deb in %s, found %s" % (version, work, found))
    return found[0]


def package_of(path):
    """Debian package owning a library file, or None."""
    r = run(["dpkg", "-S", os.path.realpath(path)])
    if r.returncode != 0:
        r = run(["dpkg", "-S", path])
    return r.stdout.split(":")[0].strip() if r.returncode == 0 else None


def build(a):
    for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps", "file"):
        if not shutil.which(tool):
            skip("%s is not installed (scripts/setup.sh installs dpkg-dev and file)" % tool)
    work = fresh_dir(os.path.abspath(a.work))
    must(["cpack", "-G", "DEB", "--config", os.path.join(a.build, "CPackConfig.cmake"), "-B", work], "cpack -G DEB",
         timeout=900)
    deb = deb_path(work, a.version)
    contents = must(["dpkg-deb", "--contents", deb], "dpkg-deb --contents").stdout
    files = {}
    for line in contents.splitlines():
        f = line.split()
        name = f[5] if len(f) > 5 else ""
        files[name.lstrip(".")] = line
    for want in ("/usr/lib/libcpath.so.%s" % a.version, "/usr/lib/libcpath.so.0", "/usr/lib/libcpath.so",
                 "/usr/lib/libcpath_stub.so.%s" % a.version, "/usr/lib/libcpath_stub.so.0", "/usr/bin/cpath",
                 "/usr/bin/cpath-read", "/usr/bin/cpath-ref", "/usr/include/cpath.h",
                 "/usr/lib/cmake/libcpath/libcpathConfig.cmake", "/usr/lib/cmake/libcpath/libcpathTargets.cmake",
                 "/usr/lib/pkgconfig/libcpath.pc", "/usr/share/doc/libcpath/README.md"):
        if want not in files:
            fail("%s is not in the package:\n%s" % (want, contents))
    if "-> libcpath.so.0" not in files["/usr/lib/libcpath.so"]:
        fail("/usr/lib/libcpath.so is not a link to libcpath.so.0: " + files["/usr/lib/libcpath.so"])
    stray = [n for n in files if n not in ("/", "/usr", "/usr/") and not n.startswith("/usr/")]
    if stray:
        fail("the package installs outside /usr: %s" % stray)
    fields = {k: must(["dpkg-deb", "-f", deb, k], "dpkg-deb -f").stdout.strip() for k in ("Package", "Version", "Depends")}
    if fields["Package"] != "libcpath" or fields["Version"] != a.version:
        fail("package %s version %s" % (fields["Package"], fields["Version"]))
    depends = {re.split(r"[\s(]", d.strip())[0] for d in re.split(r"[,|]", fields["Depends"]) if d.strip()}
    # Every library libcpath.so loads from a Debian package must be a dependency.
    ldd = must(["ldd", os.path.join(a.build, "lib", "libcpath.so")], "ldd").stdout
    wanted = set()
    for line in ldd.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m and re.match(r"lib(mpi|mpich|dw|pfm|stdc\+\+)", m.group(1)):
            pkg = package_of(m.group(2))
            if pkg:
                wanted.add(pkg)
    missing = wanted - depends
    if not wanted or missing:
        fail("Depends: %s lacks %s (libraries libcpath.so loads: %s)" % (fields["Depends"], sorted(missing), sorted(wanted)))
    print("PASS: %s, Depends: %s" % (os.path.basename(deb), fields["Depends"]))


def apt(a):
    if os.geteuid() != 0:
        skip("not root: apt-get install of the package needs root")
    if not shutil.which("apt-get"):
        skip("apt-get is not available")
    work = os.path.abspath(a.work)
    deb = deb_path(work, a.version)
    was_installed = run(["dpkg-query", "-W", "-f=${Status}", "libcpath"]).stdout.startswith("install ok installed")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    must(["apt-get", "install", "-y", "-q", "-o", "DPkg::Lock::Timeout=300", "./" + os.path.basename(deb)],
         "apt-get install", cwd=work, env=env, timeout=900)
    try:
        job_dir = fresh_dir(os.path.join(work, "job"))
        src = os.path.join(a.src, "tests/install/app/region_app.c")
        flags = must(["pkg-config", "--cflags", "--libs", "libcpath"], "pkg-config libcpath (installed)").stdout.split()
        exe = os.path.join(job_dir, "region_app")
        must([a.mpicc, "-O1", "-o", exe, src] + flags, "building with the installed package")
        out_dir = os.path.join(job_dir, "report")
        r = run(["/usr/bin/cpath", "-o", "out=%s,sample=0" % out_dir] + mpirun_args(a.mpirun, 2) + [exe], cwd=job_dir)
        if r.returncode != 0 or "==== libcpath report" not in r.stdout:
            fail("a job through /usr/bin/cpath: exit %d\n%s\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
        rep = json.load(open(os.path.join(out_dir, "report.json")))
        if "install-solve" not in {x["region"] for x in rep["critical_path"]["by_region"]}:
            fail("the region is not in the report of the packaged library")
        lib = must(["/usr/bin/cpath", "--print-lib"], "cpath --print-lib").stdout.strip()
        if not lib.startswith("/usr/lib/"):
            fail("the packaged cpath preloads %s" % lib)
        print("PASS: apt-get install ./%s, one job through /usr/bin/cpath" % os.path.basename(deb))
    finally:
        if not was_installed:
            r = run(["apt-get", "purge", "-y", "-q", "-o", "DPkg::Lock::Timeout=300", "libcpath"], env=env, timeout=900)
            if r.returncode != 0:
                print("warning: apt-get purge libcpath failed: " + r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["build", "apt"])
    ap.add_argument("--build")
    ap.add_argument("--work", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    ap.add_argument("--src")
    a = ap.parse_args()
    build(a) if a.step == "build" else apt(a)


if __name__ == "__main__":
    main()
