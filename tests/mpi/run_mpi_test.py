#!/usr/bin/env python3
"""Runs one MPI test program under mpirun, with and without libcpath, and checks it.

  run_mpi_test.py --np 4 --lib build/lib/libcpath.so --reader build/bin/cpath-read \
                  --workdir DIR [--options "k=v,..."] [--check mod.py] -- ./prog args

Checks, in order:
  1. the program's stdout (minus libcpath's report block) and exit code are the same with and
     without the library (unless --no-compare);
  2. every line the program wrote to $CPATH_TEST_EXPECT_DIR/expect.<rank>.txt appears in
     `cpath-read --summary` of that rank's trace; for 'call' lines the sets must be equal
     unless the file contains '# partial';
  3. each --check module's check(run) function (run has .dir, .stdout, .report (parsed
     JSON or None), .summary(rank), .np, .cmd) returns without raising.
"""
import argparse
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

REPORT_BEGIN = "==== libcpath"
REPORT_END = "==== end of libcpath report"


MPIRUN = "mpirun"


def is_open_mpi(mpirun=None):
    cmd = shlex.split(mpirun or MPIRUN)
    out = subprocess.run(cmd + ["--version"], capture_output=True, text=True)
    return any(s in out.stdout + out.stderr for s in ("Open MPI", "OpenRTE"))


def launcher(np_, env_vars, extra, yield_when_idle=True, mpirun=None, flags=()):
    """The one mpirun command line of the tests, benchmarks and scripts: `mpirun` (a command,
    possibly with arguments; default MPIRUN) with this machine's flags for a small job, the
    environment passed to every rank, launcher `flags`, -np, then `extra` (the program)."""
    cmd = shlex.split(mpirun or MPIRUN)
    if is_open_mpi(mpirun):
        cmd += ["--oversubscribe"]
        if os.geteuid() == 0:
            cmd += ["--allow-run-as-root"]
        # Waiting ranks yield the CPU: with more ranks than cores, spinning waiters would
        # otherwise steal time from the ranks that compute and blur the known answers.
        # (--spin turns this off, for tests that want waiting time to show as MPI progress;
        # None leaves Open MPI's own choice, for benchmarks.)
        if yield_when_idle is not None:
            cmd += ["--mca", "mpi_yield_when_idle", "1" if yield_when_idle else "0"]
        for k, v in env_vars.items():
            cmd += ["-x", "%s=%s" % (k, v)]
    else:
        for k, v in env_vars.items():
            cmd += ["-genv", k, v]
    cmd += list(flags) + ["-np", str(np_)] + list(extra)
    return cmd


def strip_report(text):
    out, skipping = [], False
    for line in text.splitlines():
        if line.startswith(REPORT_BEGIN) and not line.startswith(REPORT_END):
            skipping = True
        if not skipping:
            out.append(line)
        if line.startswith(REPORT_END):
            skipping = False
    return out


class Run:
    def __init__(self, args, dir_, stdout):
        self.dir, self.stdout, self.np = dir_, stdout, args.np
        self.reader = args.reader
        path = os.path.join(dir_, "report.json")
        self.report = json.load(open(path)) if os.path.exists(path) else None
        self._summary = {}

    def summary(self, rank):
        if rank not in self._summary:
            trace = os.path.join(self.dir, "trace.%d.cpt" % rank)
            r = subprocess.run([self.reader, "--summary", trace], capture_output=True, text=True)
            if r.returncode != 0:
                raise AssertionError("cpath-read failed on %s: %s" % (trace, r.stderr))
            self._summary[rank] = r.stdout.splitlines()
        return self._summary[rank]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--options", default="")
    ap.add_argument("--check", action="append", default=[])
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--spin", action="store_true", help="waiting ranks spin instead of yielding the CPU")
    ap.add_argument("--expect-rc", type=int, default=0, help="exit code the program itself returns")
    ap.add_argument("--no-trace", action="store_true",
                    help="the options write no trace (dump=0): the checks compare the program's counts with the report")
    ap.add_argument("--env", action="append", default=[], help="K=V for every rank (with libcpath)")
    ap.add_argument("--mpirun", default=os.environ.get("CPATH_MPIRUN", "mpirun"), help="MPI launcher")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    global MPIRUN
    MPIRUN = a.mpirun
    if os.path.exists(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    run_dir = os.path.join(a.workdir, "run")
    expect_dir = os.path.join(a.workdir, "expect")
    os.makedirs(expect_dir)

    base = None
    if not a.no_compare:
        base = subprocess.run(launcher(a.np, {}, cmd, not a.spin), capture_output=True, text=True, timeout=a.timeout,
                              cwd=a.workdir)
    opts = "dump=1,out=%s" % run_dir + ("," + a.options if a.options else "")
    env = {"LD_PRELOAD": os.path.abspath(a.lib), "LIBCPATH_OPTIONS": opts, "CPATH_TEST_EXPECT_DIR": expect_dir}
    env.update(e.split("=", 1) for e in a.env)
    r = subprocess.run(launcher(a.np, env, cmd, not a.spin), capture_output=True, text=True, timeout=a.timeout, cwd=a.workdir)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if base is not None and base.returncode != a.expect_rc:
        fail("the program exits with %d without libcpath (expected %d): the test cannot run:\n%s" %
             (base.returncode, a.expect_rc, base.stderr[-2000:]))
    if base is not None:
        if base.returncode != r.returncode:
            fail("exit code %d with libcpath, %d without" % (r.returncode, base.returncode))
        if sorted(strip_report(base.stdout)) != sorted(strip_report(r.stdout)):
            fail("application output differs with libcpath:\n--- without\n%s\n--- with\n%s" %
                 ("\n".join(strip_report(base.stdout)), "\n".join(strip_report(r.stdout))))
    elif r.returncode != a.expect_rc:
        fail("exit code %d" % r.returncode)
    run = Run(a, run_dir, r.stdout)
    run.cmd = cmd
    run.stderr = r.stderr  # the tool's one-line notes (checks of option warnings)
    checked = 0
    for rank in range(a.np):
        path = os.path.join(expect_dir, "expect.%d.txt" % rank)
        if not os.path.exists(path):
            continue
        expected = [l.strip() for l in open(path) if l.strip()]
        partial = "# partial" in expected
        expected = [l for l in expected if not l.startswith("#")]
        if a.no_trace:  # dump=0: no trace to summarise; the checks compare the report
            checked += 1
            continue
        got = run.summary(rank)
        for line in expected:
            if line not in got:
                fail("rank %d: expected '%s' in the trace summary; got:\n%s" % (rank, line, "\n".join(got)))
        if not partial:
            exp_calls = sorted(l for l in expected if re.match(r"rank \d+ call ", l))
            got_calls = sorted(l for l in got if re.match(r"rank \d+ call ", l))
            if exp_calls != got_calls:
                fail("rank %d: recorded calls differ from the program's own count:\n--- expected\n%s\n--- recorded\n%s"
                     % (rank, "\n".join(exp_calls), "\n".join(got_calls)))
        checked += 1
    for mod in a.check:
        spec = importlib.util.spec_from_file_location("check", mod)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        try:
            m.check(run)
        except AssertionError as e:
            fail("%s: %s" % (os.path.basename(mod), e))
    print("PASS (%d ranks checked against the program's own counts)" % checked)


if __name__ == "__main__":
    main()
