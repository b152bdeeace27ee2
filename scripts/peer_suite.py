#!/usr/bin/env python3
"""Runs a peer MPI library's test suite plain and under libcpath (see scripts/peer-suite.sh)."""
import argparse
import os
import re
import subprocess
import sys
import time

# The one mpirun command line of the project's tests (Open MPI or Hydra flags, environment).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "mpi"))
from run_mpi_test import launcher  # noqa: E402

DEFAULT_DIRS = ["pt2pt", "coll", "comm", "topo", "rma", "f90"]
DEFAULT_TIME_LIMIT = 180  # seconds, as MPICH's runtests


def parse_testlist(suite, rel):
    """Yields (dir, program, np, opts) for every test named by rel/testlist, recursively."""
    path = os.path.join(suite, rel, "testlist")
    if not os.path.exists(path):
        return
    for raw in open(path):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) == 1:
            sub = os.path.join(rel, parts[0])
            if os.path.isdir(os.path.join(suite, sub)):
                yield from parse_testlist(suite, sub)
            continue
        opts = {"arg": [], "env": [], "mpiexecarg": []}
        for kv in parts[2:]:
            if "=" not in kv:
                continue
            k, v = kv.split("=", 1)
            if k in ("arg", "env", "mpiexecarg"):
                opts[k].append(v)
            else:
                opts[k] = v
        try:
            np_ = int(parts[1])
        except ValueError:
            continue
        yield rel, parts[0], np_, opts


def passed(rc, output, timed_out):
    """MPICH runtests' default verdict: status 0 and only ' No Errors' in the output."""
    if timed_out or rc != 0:
        return False
    found = False
    for line in output.splitlines():
        if "FORTRAN STOP" in line:
            continue
        if re.match(r"^\s*No [Ee]rrors\s*$", line):
            found = True
        elif not re.match(r"^\s*Test Passed\s*$", line):
            return False
    return found


class Runner:
    def __init__(self, a):
        self.a = a
        self.count = 0

    def run(self, suite, rel, prog, np_, opts, with_lib, tag):
        self.count += 1
        env = {}
        for e in opts["env"]:
            if "=" in e:
                k, v = e.split("=", 1)
                env[k] = v
        if with_lib:
            out_dir = os.path.join(self.a.work, "reports", "%s-%s-%d-%s" % (rel.replace("/", "_"), prog, self.count, tag))
            env["LD_PRELOAD"] = self.a.lib
            env["LIBCPATH_OPTIONS"] = ",".join(x for x in (self.a.options, "out=" + out_dir) if x)
        extra = []
        for m in opts["mpiexecarg"]:
            extra += m.split()
        cmd = launcher(np_, env, extra + ["./" + prog] + [x for arg in opts["arg"] for x in arg.split()],
                           mpirun=self.a.mpirun)
        limit = DEFAULT_TIME_LIMIT
        if str(opts.get("timeLimit", "")).isdigit():
            limit = int(opts["timeLimit"])
        limit = int(limit * self.a.timeout_scale)
        t0 = time.time()
        timed_out = False
        try:
            p = subprocess.run(["timeout", "-k", "10", str(limit)] + cmd, cwd=os.path.join(suite, rel),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=limit + 30)
            rc, out = p.returncode, p.stdout.decode(errors="replace")
            timed_out = rc == 124
        except subprocess.TimeoutExpired as e:
            rc, out, timed_out = -1, (e.stdout or b"").decode(errors="replace"), True
        dt = time.time() - t0
        if timed_out:
            out += "\n[peer-suite: killed after %d s]\n" % limit
        log = os.path.join(self.a.work, "logs", rel.replace("/", "_"), "%s.%d.%s.log" % (prog, np_, tag))
        os.makedirs(os.path.dirname(log), exist_ok=True)
        with open(log, "w") as f:
            f.write("$ %s\n# exit %d, %.1f s\n%s" % (" ".join(cmd), rc, dt, out))
        return passed(rc, out, timed_out), rc, out, dt


def main():
    ap = argparse.ArgumentParser(usage="peer-suite.sh SUITE_DIR [DIR...] [options]")
    ap.add_argument("suite")
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--default-lib", help=argparse.SUPPRESS)
    ap.add_argument("--lib")
    ap.add_argument("--work")
    ap.add_argument("--options", default="report=file,quiet=1")
    ap.add_argument("--timeout-scale", type=float, default=1.0)
    ap.add_argument("--max-np", type=int, default=16)
    ap.add_argument("--rerun", type=int, default=1)
    ap.add_argument("--mpirun", default=os.environ.get("CPATH_MPIRUN", "mpirun"))
    a = ap.parse_args()
    a.lib = os.path.abspath(a.lib or a.default_lib)
    if not os.path.exists(a.lib):
        sys.exit("peer-suite: %s does not exist (build libcpath first or give --lib)" % a.lib)
    suite = os.path.abspath(a.suite)
    if not os.path.isdir(suite):
        sys.exit("peer-suite: %s is not a directory" % suite)
    a.work = os.path.abspath(a.work or "/tmp/peer-suite-%d" % os.getpid())
    os.makedirs(a.work, exist_ok=True)
    dirs = a.dirs or DEFAULT_DIRS
    r = Runner(a)
    table = []
    broken, flaky = [], []
    for d in dirs:
        tests = list(parse_testlist(suite, d))
        if not tests:
            print("peer-suite: %s/%s has no testlist (not configured?)" % (suite, d), file=sys.stderr)
        row = {"dir": d, "tests": 0, "plain": 0, "lib": 0, "tool": 0, "skipped": 0, "plain_s": 0.0, "lib_s": 0.0}
        for rel, prog, np_, opts in tests:
            exe = os.path.join(suite, rel, prog)
            if not os.access(exe, os.X_OK) or np_ > a.max_np:
                row["skipped"] += 1
                continue
            row["tests"] += 1
            ok_plain, _, _, t_plain = r.run(suite, rel, prog, np_, opts, False, "plain")
            ok_lib, rc_lib, out_lib, t_lib = r.run(suite, rel, prog, np_, opts, True, "lib")
            row["plain_s"] += t_plain
            row["lib_s"] += t_lib
            row["plain"] += ok_plain
            row["lib"] += ok_lib
            name = "%s/%s (np %d%s)" % (rel, prog, np_, " " + " ".join(opts["arg"]) if opts["arg"] else "")
            if ok_plain and not ok_lib:
                # A loaded machine can time a test out either way: run both again first.
                still = True
                for i in range(a.rerun):
                    p2 = r.run(suite, rel, prog, np_, opts, False, "plain-rerun%d" % i)[0]
                    l2, rc2, out2, _ = r.run(suite, rel, prog, np_, opts, True, "lib-rerun%d" % i)
                    if l2 or not p2:
                        still = False
                        break
                    rc_lib, out_lib = rc2, out2
                if still:
                    row["tool"] += 1
                    broken.append((name, rc_lib, out_lib))
                else:
                    flaky.append(name)
            print("%-40s plain %s  lib %s  %5.1f s / %5.1f s" % (name[:40], "pass" if ok_plain else "FAIL",
                                                                 "pass" if ok_lib else "FAIL", t_plain, t_lib),
                  flush=True)
        table.append(row)
    print()
    print("%-10s %6s %11s %14s %14s %8s %10s %10s" % ("directory", "tests", "pass plain", "pass libcpath",
                                                      "tool-caused", "skipped", "plain s", "libcpath s"))
    tot = {k: 0 for k in ("tests", "plain", "lib", "tool", "skipped", "plain_s", "lib_s")}
    for row in table:
        print("%-10s %6d %11d %14d %14d %8d %10.0f %10.0f" % (row["dir"], row["tests"], row["plain"], row["lib"],
                                                              row["tool"], row["skipped"], row["plain_s"], row["lib_s"]))
        for k in tot:
            tot[k] += row[k]
    print("%-10s %6d %11d %14d %14d %8d %10.0f %10.0f" % ("total", tot["tests"], tot["plain"], tot["lib"], tot["tool"],
                                                          tot["skipped"], tot["plain_s"], tot["lib_s"]))
    if flaky:
        print("\nFailed once with libcpath but passed (or failed plain too) when run again: " + ", ".join(flaky))
    for name, rc, out in broken:
        print("\n==== %s: passes plain, fails with libcpath (exit %d)\n%s" % (name, rc, out.rstrip()[-4000:]))
    print("\nlogs: %s/logs" % a.work)
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
