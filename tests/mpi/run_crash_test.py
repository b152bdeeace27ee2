#!/usr/bin/env python3
"""Crash-time traces (issue 16): a job that ends before MPI_Finalize still leaves each rank's
trace, and cpath-ref analyses what exists into a result labelled partial.

  run_crash_test.py --lib LIB --bin BUILD/bin --workdir DIR --how abort|segv|exit [--options OPTS]

Runs `crash_app HOW` on 4 ranks without and with libcpath and checks:
  1. the exit code and the application's stdout are the same both ways;
  2. one stderr line from the rank that caused the end names the cause and the trace file
     (with crash=0: says no trace was written, and none is);
  3. rank 1 wrote DIR/trace.1.cpt holding exactly the calls it made, and the other ranks
     theirs (Open MPI terminates them with SIGTERM, which they survive long enough to write;
     one the launcher kills outright must be named by cpath-ref as missing). MPICH's hydra
     SIGKILLs every rank's process group at once, so there only rank 1's trace can exist, and
     rank 1's line must say why the others are missing;
  4. `cpath-ref --summary DIR` succeeds with "partial 1", rank 1's reason, and a path with most
     compute on rank 1 (the slow one) that visits several ranks where their traces exist (the
     walk starts where the records end, so reaching rank 1 needs the matched messages and the
     communicators unified from the partial traces); with one trace removed it still succeeds
     and names the rank.
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_mpi_test import launcher, strip_report  # noqa: E402

REASON = {"abort": "called MPI_Abort (error code 3)", "segv": "received SIGSEGV before MPI_Finalize",
          "exit": "exited without calling MPI_Finalize"}
# What rank 1 recorded before it ended (crash_app.c).
RANK1_CALLS = ["call MPI_Init count=1", "call MPI_Comm_split count=1", "call MPI_Sendrecv count=20",
               "call MPI_Allreduce count=20", "call MPI_Barrier count=1"]


# MPICH's hydra reports a failed job on stdout, naming a PID and whichever rank it saw end
# first (the one that crashed or one it killed): the launcher's words, not the application's.
HYDRA_BANNER = ("=====", "=   ", "YOUR APPLICATION TERMINATED WITH THE EXIT STRING:",
                "This typically refers to a problem with your application.", "Please see the FAQ page")


def app_output(text):
    return sorted(l for l in strip_report(text) if l.strip() and not l.startswith(HYDRA_BANNER))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def path_compute(bindir, d):
    """Ranks the path of `cpath-ref d` visits, and its compute nanoseconds per rank."""
    segs = subprocess.run([os.path.join(bindir, "cpath-ref"), d], capture_output=True, text=True).stdout
    compute, ranks = {}, set()
    for l in segs.splitlines():
        if l.startswith("#"):
            continue
        p = l.split()
        ranks.add(int(p[0]))
        if p[1] == "compute":
            compute[int(p[0])] = compute.get(int(p[0]), 0) + int(p[3]) - int(p[2])
    return ranks, compute


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--how", required=True, choices=sorted(REASON))
    ap.add_argument("--options", default="")
    ap.add_argument("--mpirun", default="mpirun")
    a = ap.parse_args()
    import run_mpi_test
    run_mpi_test.MPIRUN = a.mpirun
    if os.path.exists(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    out_dir = os.path.join(a.workdir, "run")
    app = [os.path.join(a.bin, "crash_app"), a.how]
    # Open MPI sends the surviving ranks SIGTERM, then SIGKILL after odls_base_sigkill_timeout
    # (1 s): on a loaded 2-core machine a rank may not get the CPU within that second.
    version = subprocess.run([a.mpirun, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version:
        app = ["--mca", "odls_base_sigkill_timeout", "10"] + app
    # MPICH's hydra kills the other ranks with SIGKILL (no SIGTERM, no grace period; strace of
    # hydra_pmi_proxy shows kill(-pgid, SIGKILL) per rank): nothing can run in them.
    hydra = "HYDRA" in version
    base = subprocess.run(launcher(4, {}, app), capture_output=True, text=True, timeout=120, cwd=a.workdir)
    opts = ",".join(x for x in ("out=" + out_dir, "sample=0", a.options) if x)
    r = subprocess.run(launcher(4, {"LD_PRELOAD": os.path.abspath(a.lib), "LIBCPATH_OPTIONS": opts}, app),
                       capture_output=True, text=True, timeout=120, cwd=a.workdir)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if base.returncode == 0:
        fail("crash_app %s exits with 0 without libcpath: the test cannot run" % a.how)
    codes = [base.returncode]
    # Hydra's own exit code races: the dying rank's status (5) or a killed rank's (9), whichever
    # its proxy reports first; without libcpath it gives both (9 9 9 5 5 9 9 9 seen, and once six
    # 9s in a row). Under hydra the code with libcpath must be one the launcher gives without it,
    # or the status the dying rank itself gives (crash_app.c: exit(5), MPI_Abort(..., 3)).
    own = {"exit": 5, "abort": 3}.get(a.how) if hydra else None
    while hydra and r.returncode not in codes and r.returncode != own and len(codes) < 6:
        codes.append(subprocess.run(launcher(4, {}, app), capture_output=True, text=True, timeout=120,
                                    cwd=a.workdir).returncode)
    if r.returncode not in codes and r.returncode != own:
        fail("exit code %d with libcpath, %s without" % (r.returncode, " / ".join(str(c) for c in codes)))
    # Hydra's forwarding of the dying rank's flushed stdout races with the kill too: without
    # libcpath it once lost "rank 1 reached the end" (CI, MPICH 4.0.2). The run without is
    # repeated until it shows what the application printed.
    tries = 1
    while hydra and "rank 1 reached the end" not in base.stdout and tries < 5:
        base = subprocess.run(launcher(4, {}, app), capture_output=True, text=True, timeout=120, cwd=a.workdir)
        tries += 1
    if "rank 1 reached the end" not in r.stdout or app_output(r.stdout) != app_output(base.stdout):
        fail("application output differs:\n--- without\n%s\n--- with\n%s" % (base.stdout, r.stdout))
    lines = [l for l in r.stderr.splitlines() if l.startswith("libcpath:")]
    mine = [l for l in lines if l.startswith("libcpath: rank 1 ")]
    if len(mine) != 1 or REASON[a.how] not in mine[0]:
        fail("expected one line from rank 1 naming '%s', got:\n%s" % (REASON[a.how], "\n".join(lines)))
    others = [l for l in lines if not l.startswith(("libcpath: rank 1 ", "libcpath: rank 0 "))]
    if others:
        fail("ranks other than 0 and 1 must stay quiet:\n%s" % "\n".join(others))
    traces = sorted(f for f in os.listdir(out_dir) if f.startswith("trace.")) if os.path.isdir(out_dir) else []
    if "crash=0" in a.options:
        if traces or "crash=0" not in mine[0]:
            fail("crash=0: expected no trace and a line saying so; traces %s, line %s" % (traces, mine[0]))
        print("PASS (crash=0: no traces, the reason said)")
        return
    # The rank that caused the end always writes; a rank the launcher kills outright cannot,
    # and cpath-ref must then name it.
    if hydra:
        if traces != ["trace.1.cpt"]:
            fail("under MPICH's hydra (SIGKILL) expected rank 1's trace only, got %s" % traces)
        if "MPICH's launcher (hydra) kills them with SIGKILL" not in mine[0]:
            fail("rank 1's line should say the other ranks' traces are missing and why: %s" % mine[0])
    else:
        if "trace.1.cpt" not in traces or len(traces) < 3:
            fail("expected a trace from rank 1 and from most other ranks, got %s" % traces)
        if "may be missing if the launcher kills them outright" not in mine[0]:
            fail("rank 1's line should say a rank the launcher kills leaves no trace: %s" % mine[0])
    missing = [str(i) for i in range(4) if "trace.%d.cpt" % i not in traces]
    if os.path.join(out_dir, "trace.1.cpt") not in mine[0]:
        fail("rank 1's line does not name its trace file: %s" % mine[0])
    read = subprocess.run([os.path.join(a.bin, "cpath-read"), "--summary", os.path.join(out_dir, "trace.1.cpt")],
                          capture_output=True, text=True)
    if read.returncode != 0:
        fail("cpath-read on rank 1's partial trace: " + read.stderr)
    got = [l.split(" ", 2)[2] for l in read.stdout.splitlines() if " call " in l]
    want = RANK1_CALLS + (["call MPI_Abort count=1"] if a.how == "abort" else [])
    if sorted(x.rsplit(" bytes=", 1)[0] for x in got) != sorted(want):
        fail("rank 1's partial trace holds %s, expected %s" % (got, want))
    ref = subprocess.run([os.path.join(a.bin, "cpath-ref"), "--summary", out_dir], capture_output=True, text=True)
    if ref.returncode != 0:
        fail("cpath-ref on the partial traces: " + ref.stderr)
    summary = ref.stdout.splitlines()
    # A rank killed while writing its trace leaves a file cpath-ref cannot read: it skips it
    # (saying so) and counts the rank as missing.
    missing += [f.rsplit("trace.", 1)[1].split(".")[0] for l in ref.stderr.splitlines() if "(skipped:" in l
                for f in [l.split(": ")[1]]]
    missing = sorted(set(missing), key=int)
    if "partial 1" not in summary or not any(l.startswith("rank_end 1 ") and REASON[a.how] in l for l in summary):
        fail("cpath-ref does not label the result partial with rank 1's reason:\n" + ref.stdout)
    if "missing_ranks " + (",".join(missing) or "none") not in summary:
        fail("cpath-ref should name the ranks without a trace (%s):\n%s" % (missing, ref.stdout))
    ranks, compute = path_compute(a.bin, out_dir)
    # With rank 1's trace alone nothing is matched, so the path cannot leave rank 1.
    if len(ranks) < (1 if len(traces) == 1 else 2) or not compute or max(compute, key=compute.get) != 1:
        fail("the partial path should visit several ranks with most compute on rank 1: ranks %s, compute %s"
             % (sorted(ranks), compute))
    # A rank that left no trace (killed outright): analysed without it, and named.
    short = os.path.join(a.workdir, "without3")
    shutil.copytree(out_dir, short)
    if os.path.exists(os.path.join(short, "trace.3.cpt")):
        os.remove(os.path.join(short, "trace.3.cpt"))
    expect = "missing_ranks " + ",".join(sorted(set(missing + ["3"]), key=int))
    ref = subprocess.run([os.path.join(a.bin, "cpath-ref"), "--summary", short], capture_output=True, text=True)
    if ref.returncode != 0 or expect not in ref.stdout.splitlines():
        fail("cpath-ref without rank 3's trace: exit %d\n%s%s" % (ref.returncode, ref.stdout, ref.stderr))
    # World's members are known without rank 3's records, so the path still reaches rank 1.
    ranks, compute = path_compute(a.bin, short)
    if not compute or max(compute, key=compute.get) != 1:
        fail("without rank 3's trace the path should still have most compute on rank 1: %s" % compute)
    print("PASS (exit code %d both ways, %d partial traces, cpath-ref partial result)" % (r.returncode, len(traces)))


if __name__ == "__main__":
    main()
