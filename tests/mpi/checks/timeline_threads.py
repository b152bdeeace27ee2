"""timeline.json of a program whose threads call MPI (coll_threads, MPI_THREAD_MULTIPLE): one
track per thread that called MPI on every rank, each thread's calls on its own track (they
never overlap there), every call of the trace present."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from timeline_checks import check_every_call, check_path, check_tracks, load  # noqa: E402


def check(run):
    tl = load(run)
    check_tracks(tl, run.np)
    check_every_call(run, tl)  # includes: slices of one thread tile its time without overlap
    check_path(run, tl)
    for r in range(run.np):
        m = re.match(r"rank %d events \d+ trace_bytes \d+ threads (\d+)" % r, run.summary(r)[0])
        want = int(m.group(1))
        tracks = {e["tid"] for e in tl["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == r
                  and e["args"]["name"].startswith("thread ")}
        used = {e["tid"] for e in tl["traceEvents"] if e["ph"] == "X" and e.get("cat") == "mpi" and e["pid"] == r}
        assert len(tracks) == want and used == tracks, "rank %d: %d thread tracks (%d used), trace has %d threads" % (
            r, len(tracks), len(used), want)
