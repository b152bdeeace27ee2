#!/usr/bin/env python3
"""Never hurt the job, never lose the user's data (issue 16): report directories, spill
directory, random options. Real 4-rank jobs, with and without libcpath.

  run_robust_test.py --lib LIB --bin BUILD/bin --workdir DIR CASE [--count N --seed S]

CASE:
  out_existing    out= names a directory holding an earlier report (with a trace of a rank
                  the new run does not have): the new report goes to DIR-2, one stderr line
                  says so, the earlier files are untouched; with overwrite=1 the directory is
                  reused and the earlier run's files (the extra rank's trace too) are gone.
  out_unwritable  out= cannot be created (its parent is a file): the report goes to a new
                  directory under $TMPDIR named on one stderr line; nothing is written in the
                  current directory (a report.json there stays as it was).
  out_file        out= names a file: the file is unchanged, the report and the path files
                  (path=1) go to a numbered sibling directory, said on one line.
  spill_dir       on_full=spill with a 1M cap and an unusable spill_dir: one line gives the
                  reason and the fallback ($TMPDIR, no spill_failed in the report);
                  with $TMPDIR unusable too, recording stops and the report lists the
                  approximation cause spill_failed.
  harness         report=file,quiet=1 (with sampling on): stdout and stderr exactly those of the
                  plain run (what MPICH's runtests needs), the report only in its directory;
                  report=stderr: stdout as plain, the report block on stderr.
  eager_cache     the eager limit read through MPI_T is kept in $XDG_CACHE_HOME/libcpath: the
                  first run asks MPI_T and says so, the second reuses it (same limits, source
                  says "cached in"), a changed MPI parameter in the environment is a new
                  configuration (asked again; under Open MPI the new limit is the one in the
                  report), eager_cache=0 always asks.
  fuzz            N random option strings (seed S): for each, the application's output and exit
                  code are those of the plain run, it ends within a bounded time, and every
                  line libcpath adds to stderr starts with "libcpath: ".
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_mpi_test  # noqa: E402
from run_mpi_test import launcher, strip_report  # noqa: E402


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Job:
    def __init__(self, a):
        self.a = a

    def run(self, prog, args=(), options=None, env=None, cwd=None, timeout=180):
        e = dict(env or {})
        if options is not None:
            e["LD_PRELOAD"] = os.path.abspath(self.a.lib)
            e["LIBCPATH_OPTIONS"] = options
        t0 = time.time()
        r = subprocess.run(launcher(4, e, [os.path.join(self.a.bin, prog)] + list(args)), capture_output=True,
                           text=True, timeout=timeout, cwd=cwd or self.a.workdir)
        r.elapsed = time.time() - t0
        return r


def lib_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("libcpath: ")]


def expect_ok(r, what):
    if r.returncode != 0:
        fail("%s: exit code %d\n%s%s" % (what, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))


def case_out_existing(a, job):
    out = os.path.join(a.workdir, "rep")
    r = job.run("crash_app", ["ok"], "sample=0,report=file,dump=1,out=" + out)
    expect_ok(r, "first run")
    # An earlier run "with more ranks": a trace of rank 7 beside the four of this run.
    shutil.copy(os.path.join(out, "trace.0.cpt"), os.path.join(out, "trace.7.cpt"))
    before = {f: open(os.path.join(out, f), "rb").read() for f in os.listdir(out)}
    r = job.run("crash_app", ["ok"], "sample=0,report=file,dump=1,out=" + out)
    expect_ok(r, "second run")
    second = out + "-2"
    if not os.path.exists(os.path.join(second, "report.json")):
        fail("the second report is not in %s: %s" % (second, os.listdir(a.workdir)))
    after = {f: open(os.path.join(out, f), "rb").read() for f in os.listdir(out)}
    if after != before:
        fail("the earlier report directory was changed")
    said = [l for l in lib_lines(r.stderr) if out in l and second in l]
    if len(said) != 1 or "earlier report" not in said[0]:
        fail("expected one line naming %s and %s, got:\n%s" % (out, second, r.stderr))
    if sorted(f for f in os.listdir(second) if f.startswith("trace.")) != ["trace.%d.cpt" % i for i in range(4)]:
        fail("%s holds traces of another run: %s" % (second, os.listdir(second)))
    text = json.load(open(os.path.join(second, "report.json")))
    if text.get("out_dir") != second:
        fail("report.json out_dir is %r, expected %s" % (text.get("out_dir"), second))
    if "Files: " + second not in open(os.path.join(second, "report.txt")).read():
        fail("the text report does not say where its files are")
    # overwrite=1: the same directory, the earlier run's files gone (rank 7's trace too).
    r = job.run("crash_app", ["ok"], "sample=0,report=file,dump=1,overwrite=1,out=" + out)
    expect_ok(r, "overwrite=1 run")
    if os.path.exists(out + "-3"):
        fail("overwrite=1 made a new directory")
    if os.path.exists(os.path.join(out, "trace.7.cpt")):
        fail("overwrite=1 left the earlier run's trace.7.cpt beside the new traces")
    if open(os.path.join(out, "report.json"), "rb").read() == before["report.json"]:
        fail("overwrite=1 did not write a new report")
    ref = subprocess.run([os.path.join(a.bin, "cpath-ref"), "--summary", out], capture_output=True, text=True)
    if ref.returncode != 0:
        fail("cpath-ref on the reused directory: " + ref.stderr)
    print("PASS (existing out= -> %s, overwrite=1 reuses it without the earlier files)" % second)


def case_out_unwritable(a, job):
    blocker = os.path.join(a.workdir, "blocker")
    open(blocker, "w").write("a file\n")
    cwd = os.path.join(a.workdir, "cwd")
    os.makedirs(cwd)
    sentinel = os.path.join(cwd, "report.json")
    open(sentinel, "w").write("the user's file\n")
    tmp = os.path.join(a.workdir, "tmp")
    os.makedirs(tmp)
    r = job.run("crash_app", ["ok"], "sample=0,report=file,path=1,out=" + blocker + "/sub", env={"TMPDIR": tmp},
                cwd=cwd)
    expect_ok(r, "run")
    if open(sentinel).read() != "the user's file\n" or sorted(os.listdir(cwd)) != ["report.json"]:
        fail("files written in the current directory: %s" % os.listdir(cwd))
    made = glob.glob(os.path.join(tmp, "cpath-crash_app-4p-*"))
    if len(made) != 1 or not os.path.exists(os.path.join(made[0], "report.json")):
        fail("expected one report directory under $TMPDIR, got %s" % made)
    if not all(os.path.exists(os.path.join(made[0], "path.%d.txt" % i)) for i in range(4)):
        fail("path files missing in %s" % made[0])
    said = [l for l in lib_lines(r.stderr) if "cannot create report directory" in l]
    if len(said) != 1 or made[0] not in said[0]:
        fail("expected one line naming the fallback %s, got:\n%s" % (made[0], r.stderr))
    print("PASS (unwritable out= -> %s)" % made[0])


def case_out_file(a, job):
    f = os.path.join(a.workdir, "results")
    open(f, "w").write("keep me\n")
    r = job.run("crash_app", ["ok"], "sample=0,report=file,path=1,out=" + f)
    expect_ok(r, "run")
    if open(f).read() != "keep me\n":
        fail("out= file was changed")
    d = f + "-2"
    if not all(os.path.exists(os.path.join(d, n)) for n in ["report.json"] + ["path.%d.txt" % i for i in range(4)]):
        fail("report or path files missing in %s: %s" % (d, os.listdir(d) if os.path.isdir(d) else "none"))
    said = [l for l in lib_lines(r.stderr) if "is a file" in l]
    if len(said) != 1 or d not in said[0]:
        fail("expected one line saying out= is a file and naming %s, got:\n%s" % (d, r.stderr))
    print("PASS (out= a file -> %s)" % d)


def case_spill_dir(a, job):
    bad = os.path.join(a.workdir, "no", "such", "dir")
    # Fallback: $TMPDIR works, so the trace spills there.
    out = os.path.join(a.workdir, "fallback")
    # analysis=0: the finalize-time analysis of 200000 calls per rank adds nothing here.
    r = job.run("coll_memcap", [], "sample=0,report=file,analysis=0,mem=1M,chunk=64K,spill_dir=%s,out=%s" % (bad, out),
                timeout=500)
    expect_ok(r, "fallback run")
    said = [l for l in lib_lines(r.stderr) if "spill_dir=" + bad in l]
    if len(said) != 1 or "spilling to" not in said[0]:
        fail("expected one line giving the reason and the fallback, got:\n%s" % r.stderr)
    rep = json.load(open(os.path.join(out, "report.json")))
    if any(x["cause"] == "spill_failed" for x in rep["analysis"]["approximations"]):
        fail("spill_failed reported although the fallback worked")
    # Both unusable: recording stops, with the reason, and the report says so.
    out = os.path.join(a.workdir, "stopped")
    r = job.run("coll_memcap", [], "sample=0,report=file,analysis=0,mem=1M,chunk=64K,spill_dir=%s,out=%s" % (bad, out),
                env={"TMPDIR": bad}, timeout=500)
    expect_ok(r, "stop run")
    said = [l for l in lib_lines(r.stderr) if "spill_dir=" + bad in l]
    if not said or "recording will stop" not in said[0] or "No such file" not in said[0]:
        fail("expected a line saying why and that recording will stop, got:\n%s" % r.stderr)
    rep = json.load(open(os.path.join(out, "report.json")))
    keys = [x["cause"] for x in rep["analysis"]["approximations"]]
    if "spill_failed" not in keys or "stopped_at_memory_cap" not in keys or rep["analysis"]["exact"]:
        fail("the report should list spill_failed and stopped_at_memory_cap: %s" % keys)
    print("PASS (unusable spill_dir: fallback said; without one, stop said and reported)")


def case_harness(a, job):
    plain = job.run("crash_app", ["ok"])
    expect_ok(plain, "plain run")
    out = os.path.join(a.workdir, "quiet")
    r = job.run("crash_app", ["ok"], "report=file,quiet=1,out=" + out)
    expect_ok(r, "report=file,quiet=1 run")
    if sorted(r.stdout.splitlines()) != sorted(plain.stdout.splitlines()):
        fail("report=file,quiet=1: stdout differs from the plain run:\n" + r.stdout)
    if lib_lines(r.stderr) or sorted(r.stderr.splitlines()) != sorted(plain.stderr.splitlines()):
        fail("report=file,quiet=1: stderr differs from the plain run:\n" + r.stderr)
    if run_mpi_test.REPORT_BEGIN not in open(os.path.join(out, "report.txt")).read():
        fail("report=file: no report.txt")
    r = job.run("crash_app", ["ok"], "report=stderr,quiet=1,out=" + os.path.join(a.workdir, "stderr"))
    expect_ok(r, "report=stderr run")
    if sorted(r.stdout.splitlines()) != sorted(plain.stdout.splitlines()):
        fail("report=stderr: stdout differs from the plain run:\n" + r.stdout)
    if run_mpi_test.REPORT_END not in r.stderr:
        fail("report=stderr: no report on stderr:\n" + r.stderr[-2000:])
    print("PASS (report=file,quiet=1 silent; report=stderr keeps stdout clean)")


# Random option strings: real keys with good, bad, extreme and absurd values, unknown keys,
# odd separators. Output options are pinned afterwards so the runs write under the workdir.
KEYS = ["mem", "chunk", "on_full", "spill_dir", "sample", "freq", "period", "events", "top", "callchain", "path",
        "dump", "analysis", "report", "quiet", "verbose", "crash", "skew_ns", "drift_ppm", "eager", "timeline",
        "timeline_max", "matches", "align", "sim_hosts", "ranks_per_node", "overwrite", "bogus", ""]
VALUES = ["0", "1", "-1", "2", "1000", "1000000000000", "-99999999999999999999", "1e308", "nan", "inf", "0x10",
          "4K", "1M", "64M", "1G", "100G", "1T", "stop", "spill", "stdout", "stderr", "file", "yes", "off",
          "cpu-clock", "cycles,instructions", "no-such-event", "/nonexistent", "/proc", "", "=", "4K:64K", "abc",
          "\u00e9", "9" * 40]


def random_options(rnd):
    parts = []
    for _ in range(rnd.randint(1, 6)):
        k, v = rnd.choice(KEYS), rnd.choice(VALUES)
        parts.append(k if rnd.random() < 0.05 else "%s=%s" % (k, v))
    return rnd.choice([",", ", ", ",,", " "]).join(parts)


def case_eager_cache(a, job):
    cache = os.path.join(a.workdir, "cache")
    ompi = "--oversubscribe" in launcher(1, {}, [])

    def limits(opts, env=None, what=""):
        out = os.path.join(a.workdir, "rep-%s" % what)
        e = {"XDG_CACHE_HOME": cache}
        e.update(env or {})
        r = job.run("crash_app", ["ok"], "sample=0,report=file,%sout=%s" % (opts, out), env=e)
        expect_ok(r, what)
        return json.load(open(os.path.join(out, "report.json")))["analysis"]["eager_limit"]

    first = limits("", what="first")
    if not first["source"].startswith("MPI_T"):
        print("SKIP-like: this MPI exposes no eager-limit control variable (%s): nothing to cache" % first["source"])
        return
    if "cached" in first["source"]:
        fail("first run with an empty cache says it was cached: %s" % first)
    files = os.listdir(os.path.join(cache, "libcpath"))
    if len(files) != 1:
        fail("expected one cache file, got %s" % files)
    second = limits("", what="second")
    lims = ("intra", "inter", "inline_intra", "inline_inter")
    if "cached in" not in second["source"] or [second[k] for k in lims] != [first[k] for k in lims]:
        fail("second run should reuse the first's answer: %s vs %s" % (second, first))
    # A different configuration of the MPI library is never answered from the cache.
    if ompi:
        env = {"OMPI_MCA_btl_vader_eager_limit": "8192"}
    else:
        env = {"MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE": "32768"}
    third = limits("", env, what="third")
    if "cached" in third["source"]:
        fail("a changed MPI parameter must not be answered from the cache: %s" % third)
    # ob1 sends eagerly while the payload fits beside its 56-byte header (docs/pag-rules.md rule 3).
    want = 8192 - 56 if "56-byte header" in third["source"] else 8192
    if ompi and third["intra"] != want:
        fail("Open MPI's btl_vader_eager_limit=8192 should give the limit %d: %s" % (want, third))
    off = limits("eager_cache=0,", what="off")
    if "cached" in off["source"] or [off[k] for k in lims] != [first[k] for k in lims]:
        fail("eager_cache=0 asks MPI_T again and gets the first answer: %s vs %s" % (off, first))
    print("eager cache: first %s; second %s; changed %s" % (first, second["source"], third))


def case_fuzz(a, job):
    rnd = random.Random(a.seed)
    plain = job.run("crash_app", ["ok"])
    expect_ok(plain, "plain run")
    base = sorted(strip_report(plain.stdout))
    bound = max(60.0, 10 * plain.elapsed)
    for i in range(a.count):
        opts = random_options(rnd)
        out = os.path.join(a.workdir, "f%d" % i)
        full = opts + ",out=%s,overwrite=1" % out
        try:
            r = job.run("crash_app", ["ok"], full, timeout=bound + 60)
        except subprocess.TimeoutExpired:
            fail("options %r: not finished after %.0f s" % (full, bound + 60))
        what = "options %r (case %d, seed %d)" % (full, i, a.seed)
        if r.returncode != 0:
            fail("%s: exit code %d\n%s" % (what, r.returncode, r.stderr[-3000:]))
        if sorted(strip_report(r.stdout)) != base:
            fail("%s: application output differs:\n%s" % (what, r.stdout[-3000:]))
        if r.elapsed > bound:
            fail("%s: %.1f s, bound %.0f s (plain %.1f s)" % (what, r.elapsed, bound, plain.elapsed))
        # Lines libcpath adds to stderr (the report itself may go there with report=stderr).
        extra = [l for l in strip_report(r.stderr) if l.strip() and l not in plain.stderr.splitlines()]
        stray = [l for l in extra if not l.startswith("libcpath: ") and not l.startswith("[")]
        if stray:
            fail("%s: stderr lines not from libcpath's one-line notes:\n%s" % (what, "\n".join(stray[:10])))
        print("ok %3d %5.1f s  %s" % (i, r.elapsed, opts), flush=True)
        shutil.rmtree(out, ignore_errors=True)
    print("PASS (%d random option strings, seed %d)" % (a.count, a.seed))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["out_existing", "out_unwritable", "out_file", "spill_dir", "harness", "eager_cache", "fuzz"])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--seed", type=int, default=16)
    a = ap.parse_args()
    run_mpi_test.MPIRUN = a.mpirun
    a.workdir = os.path.abspath(a.workdir)
    a.bin = os.path.abspath(a.bin)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    globals()["case_" + a.case](a, Job(a))


if __name__ == "__main__":
    main()
