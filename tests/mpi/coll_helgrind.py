#!/usr/bin/env python3
"""Runs an MPI_THREAD_MULTIPLE program under valgrind's helgrind with libcpath preloaded and
fails if helgrind reports a data race (or another threading error) in libcpath.

  coll_helgrind.py --np 2 --lib build/lib/libcpath.so --src /path/to/libcpath \
                   --workdir DIR -- ./coll_threads quick

Open MPI's own internals (shared-memory transport, progress engine, lock-free queues) make
helgrind report many races that are not libcpath's, so a report counts only when the
*accessing* frame -- the first frame of either conflicting stack that is not in libc, the
dynamic loader, valgrind's preload or libstdc++ -- is in libcpath.so or in a source file of
this project (src/, wrappers/, replay/, pmu/, generated/). Exits 77 (ctest: skipped) when
valgrind is not installed. Prints every counted report in full.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_mpi_test  # noqa: E402

IGNORED_OBJECTS = ("libc.so", "libc-", "ld-linux", "vgpreload", "libstdc++", "libpthread", "libgcc_s")




def records(text):
    """helgrind's reports, each a list of sections (lists of lines) split at blank lines.
    Reports are separated by '-----' lines."""
    rec, sec = [], []
    for line in text.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if body.startswith("-------"):
            if sec:
                rec.append(sec)
            if rec:
                yield rec
            rec, sec = [], []
        elif body.strip() == "":
            if sec:
                rec.append(sec)
            sec = []
        else:
            sec.append(body)
    if sec:
        rec.append(sec)
    if rec:
        yield rec


def frames(section):
    return [l.strip() for l in section if re.match(r"\s*(at|by) 0x", l)]


ERROR_HEADS = re.compile(r"^\s*(Possible data race|This conflicts with|Thread #\d+[: ]|Lock order|"
                         r"Thread #\d+ unlocked|Thread #\d+ deallocated)")
SKIP_HEADS = re.compile(r"^\s*(Lock at .* was first observed|Address |Thread #\d+ was created|"
                        r"Thread #\d+ is the program's root thread|---Thread-Announcement)")


def access_sections(rec):
    """(head line, stack) of the accesses/operations a report is about (not lock creation sites)."""
    out = []
    for sec in rec:
        head = sec[0]
        if SKIP_HEADS.match(head) or not ERROR_HEADS.match(head):
            continue
        f = frames(sec)
        if f:
            out.append((head, f))
    return out


def access_stacks(rec):
    return [f for _, f in access_sections(rec)]


def own_stack_access(rec, src):
    """True when every libcpath access of the report is by the thread whose stack holds the
    address: a libcpath frame wrote its own local variable, and another thread (the MPI library
    completing a request on that stack later) read a reused slot. Not a race of ours; which
    slots get reused moves with the size of our frames."""
    owner = None
    for sec in rec:
        for line in sec:
            m = re.search(r"is on thread #(\d+)'s stack", line)
            if m:
                owner = m.group(1)
    if owner is None:
        return False
    mine = []
    for head, f in access_sections(rec):
        m = re.search(r"by thread #(\d+)", head)
        if ours(accessing_frame(f), src):
            mine.append(m.group(1) if m else None)
    return bool(mine) and all(t == owner for t in mine)


def ours(frame, src):
    if "libcpath.so" in frame:
        return True
    m = re.search(r"\(([^()]*?):\d+\)$", frame)
    if m:
        path = m.group(1)
        return path.startswith(src) and "/tests/" not in path
    return False


def frame_source(frame):
    m = re.search(r"\(([^()]*?):\d+\)$", frame)
    return m.group(1) if m else None


SYNC = re.compile(r"pthread_|__gthread|mutex|_cond|rwlock|sem_|lock_guard|unique_lock|std::mutex")


def accessing_frame(stack):
    """The frame that made the access: the first one outside libc, the loader, valgrind's
    preload and libstdc++ (libc's own debug info names relative paths such as
    nptl/pthread_mutex_lock.c), and outside inlined C++ library templates -- except:
    - std::atomic's, returned as is: helgrind does not understand atomics, so an atomic
      load/store inlined into libcpath must not count as a race;
    - synchronisation primitives (pthread_*, std::mutex, lock_guard): an access inside them
      is the lock's own bookkeeping (helgrind also confuses reused stack slots there)."""
    for f in stack:
        if SYNC.search(f.split(" (")[0]):
            return f
        if any(o in f for o in IGNORED_OBJECTS):
            continue
        path = frame_source(f)
        if path is not None and not path.startswith("/"):
            continue  # libc and friends, built with relative source paths
        if path is not None and "/usr/include/" in path:
            if "atomic" in path:
                return f
            continue  # e.g. std::vector code inlined into the caller that matters
        return f
    return stack[0] if stack else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--timeout", type=int, default=800)
    ap.add_argument("--mpirun", default=os.environ.get("CPATH_MPIRUN", "mpirun"))
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    run_mpi_test.MPIRUN = a.mpirun
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("valgrind not installed: skipped")
        sys.exit(77)
    if os.path.exists(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    src = os.path.abspath(a.src).rstrip("/") + "/"
    logs = os.path.join(a.workdir, "helgrind.%p.log")
    env = {"LD_PRELOAD": os.path.abspath(a.lib),
           "LIBCPATH_OPTIONS": "dump=1,out=%s" % os.path.join(a.workdir, "run"),
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
    full = run_mpi_test.launcher(a.np, env, [], yield_when_idle=None) + [valgrind, "--tool=helgrind", "--fullpath-after=", "--num-callers=30",
                                  "--log-file=" + logs] + cmd
    print(" ".join(full))
    r = subprocess.run(full, capture_output=True, text=True, timeout=a.timeout, cwd=a.workdir)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        print("FAIL: the program exited with %d under helgrind" % r.returncode)
        sys.exit(1)
    files = sorted(glob.glob(os.path.join(a.workdir, "helgrind.*.log")))
    # the launcher's own log (mpirun is not run under valgrind, but be safe) has no client
    if len(files) < a.np:
        print("FAIL: expected %d helgrind logs, found %d" % (a.np, len(files)))
        sys.exit(1)
    total = counted = 0
    for path in files:
        text = open(path).read()
        for rec in records(text):
            st = access_stacks(rec)
            if not st:
                continue
            total += 1
            if any(ours(accessing_frame(x), src) for x in st) and not own_stack_access(rec, src):
                counted += 1
                print("---- libcpath threading error in %s:" % os.path.basename(path))
                print("\n\n".join("\n".join(sec) for sec in rec))
    traces = glob.glob(os.path.join(a.workdir, "run", "trace.*.cpt"))
    print("helgrind: %d reports in total, %d with the accessing frame in libcpath; %d trace files" % (
        total, counted, len(traces)))
    if len(traces) != a.np:
        print("FAIL: libcpath wrote %d trace files, expected %d" % (len(traces), a.np))
        sys.exit(1)
    if counted:
        print("FAIL: helgrind found %d threading error(s) in libcpath" % counted)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
