#!/usr/bin/env python3
"""What the clock-condition repair and the approximation counts say on real programs: runs every
collection test program of a build (the programs of the `cpath_mpi_test` tests, which include
the NPB-style proxies of tests/workloads) once under libcpath at N ranks with default options,
and prints one Markdown row per program from its report.json: analysis.clock violations /
repaired / unrepaired / max_shift_s, exact or not, and the approximation causes with counts.

  scripts/clock-approximations.py [--build build] [--np 4] [--filter REGEX] [--timeout 180]
                                  [--options k=v,...]

--options adds libcpath options to every run, e.g. `sim_hosts=2` (ranks on two simulated hosts,
so the alignment between hosts runs and its residual violations are repaired).

The program list and arguments come from `ctest --show-only=json-v1` (the command lines of
tests/mpi/run_mpi_test.py); each distinct program + arguments runs once, with the test's own
options left out (they inject skew, caps or errors) so the figures are what a user would see.
Timing-dependent: quote figures as "measured under load" when the machine is shared.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "mpi"))
from run_mpi_test import launcher  # noqa: E402


def programs(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True,
                         check=True).stdout
    seen, lib = [], None
    for t in json.loads(out)["tests"]:
        cmd = t.get("command") or []
        if not any(c.endswith("run_mpi_test.py") for c in cmd) or "--" not in cmd:
            continue
        if "--lib" in cmd:
            lib = cmd[cmd.index("--lib") + 1]
        prog = tuple(cmd[cmd.index("--") + 1:])
        if prog not in seen:
            seen.append(prog)
    return lib, seen




def row(name, rep):
    if rep is None:
        return "| %s | - | - | - | - | no report |" % name
    a = rep.get("analysis", {})
    c = a.get("clock", {})
    causes = ", ".join("%s %d" % (x["cause"], x["count"]) for x in a.get("approximations", [])) or "-"
    return "| %s | %s | %s | %s | %.1f | %s | %s |" % (
        name, c.get("violations", "-"), c.get("repaired", "-"), c.get("unrepaired", "-"),
        1e6 * float(c.get("max_shift_s", 0) or 0), "exact" if a.get("exact") else "approximated", causes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--filter", default="")
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--options", default="")
    a = ap.parse_args()
    lib, progs = programs(a.build)
    if not lib or not progs:
        sys.exit("clock-approximations: no collection tests found in %s (build it first)" % a.build)
    print("%d ranks, options: %s; max_shift in microseconds" % (a.np, a.options or "default"))
    print()
    print("| program | violations | repaired | unrepaired | max_shift_us | report | approximations (cause count) |")
    print("|---|---:|---:|---:|---:|---|---|")
    for prog in progs:
        name = " ".join([os.path.basename(prog[0])] + list(prog[1:]))
        if a.filter and not re.search(a.filter, name):
            continue
        work = tempfile.mkdtemp(prefix="cpath-clock-")
        env = {"LD_PRELOAD": os.path.abspath(lib), "LIBCPATH_OPTIONS": "out=%s" % os.path.join(work, "run") + ("," + a.options if a.options else ""),
               "CPATH_TEST_EXPECT_DIR": os.path.join(work, "expect")}
        os.makedirs(env["CPATH_TEST_EXPECT_DIR"])
        rep = None
        try:
            subprocess.run(launcher(a.np, env, list(prog)), capture_output=True, text=True, timeout=a.timeout,
                           cwd=work)
            path = os.path.join(work, "run", "report.json")
            if os.path.exists(path):
                rep = json.load(open(path))
        except subprocess.TimeoutExpired:
            pass
        print(row(name, rep))
        sys.stdout.flush()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
