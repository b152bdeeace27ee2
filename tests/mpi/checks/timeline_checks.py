"""Checks of timeline.json against what the run says independently: the path files (path=1,
written by the walk itself) and the trace summary (cpath-read over the dumped traces)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path  # noqa: E402


def load(run):
    with open(os.path.join(run.dir, "timeline.json")) as f:
        return json.load(f)


def ns(us):
    """Timestamps are written as microseconds with exactly three decimals: back to integer ns."""
    return int(round(us * 1000))


def path_slices(tl):
    return sorted(((e["pid"], e["args"]["kind"], ns(e["ts"]), ns(e["dur"])) for e in tl["traceEvents"]
                   if e["ph"] == "X" and e.get("cat") == "critical_path"), key=lambda s: (s[2], s[3]))


def check_tracks(tl, np_):
    ev = tl["traceEvents"]
    procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    assert procs == set(range(np_)), "process tracks %s, expected one per rank 0..%d" % (sorted(procs), np_ - 1)
    assert all(0 <= e["pid"] < np_ for e in ev if "pid" in e), "an event on a pid that is no rank"
    for r in range(np_):
        names = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == r]
        assert names.count("critical path") == 1, "rank %d: %d critical-path tracks" % (r, names.count("critical path"))


def check_path(run, tl):
    """The path's segments, in order and on the ranks the path files say; a flow arrow at every
    hand-off between ranks. Returns the path segments (zero-length ones are not drawn)."""
    origin = tl["otherData"]["time_origin_ns"]
    segs = load_path(run)
    expect = [(s["rank"], s["kind"], s["begin"] - origin, s["end"] - s["begin"]) for s in segs if s["end"] > s["begin"]]
    got = path_slices(tl)
    assert len(got) == len(expect), "%d path slices in the timeline, %d non-empty segments in the path files" % (
        len(got), len(expect))
    for g, e in zip(got, expect):
        assert g == e, "path slice %s, path files say %s (rank, kind, begin ns from origin, duration ns)" % (g, e)

    # Hand-offs: consecutive segments (in time) on different ranks.
    handoffs = sorted((a["rank"], b["rank"], b["begin"] - origin) for a, b in zip(segs, segs[1:]) if a["rank"] != b["rank"])
    ev = tl["traceEvents"]
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    ends = {e["id"]: e for e in ev if e["ph"] == "f"}
    assert set(starts) == set(ends), "flow arrows without both ends"
    flows = sorted((starts[i]["pid"], ends[i]["pid"], ns(ends[i]["ts"]) - 1) for i in starts)
    assert flows == handoffs, "flow arrows (from, to, time) %s\ndo not match the path's hand-offs %s" % (flows[:20], handoffs[:20])
    # Each arrow binds inside a drawn path slice on its two ranks.
    slices = {}
    for p, _, b, d in got:
        slices.setdefault(p, []).append((b, b + d))
    for i in starts:
        for e in (starts[i], ends[i]):
            t = ns(e["ts"])
            assert any(b <= t <= x for b, x in slices.get(e["pid"], [])), \
                "flow %s end at %d ns on rank %d is outside that rank's path slices" % (i, t, e["pid"])
    return segs


def calls_by_rank(tl):
    out = {}
    for e in tl["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "mpi":
            out.setdefault(e["pid"], {}).setdefault(e["name"], 0)
            out[e["pid"]][e["name"]] += 1
    return out


def check_every_call(run, tl):
    """Every MPI call of the trace is a slice (uncapped timeline); compute fills the gaps. A run
    of merged polls is one record (`calls=N` in cpath-read --events) and one slice."""
    got = calls_by_rank(tl)
    for r in range(run.np):
        out = subprocess.run([run.reader, "--events", os.path.join(run.dir, "trace.%d.cpt" % r)],
                             capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        want = {}
        for line in out.stdout.splitlines():
            f = line.split()
            if line and not line.startswith("#") and len(f) > 3:
                want[f[3]] = want.get(f[3], 0) + 1
        assert got.get(r, {}) == want, "rank %d: MPI slices %s, trace has %s" % (r, got.get(r), want)
    # Per thread track, MPI and compute slices tile the time from the first call to the last.
    tracks = {}
    for e in tl["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") in ("mpi", "compute"):
            tracks.setdefault((e["pid"], e["tid"]), []).append((ns(e["ts"]), ns(e["dur"])))
    for k, v in tracks.items():
        v.sort()
        for (b0, d0), (b1, _) in zip(v, v[1:]):
            assert b1 == b0 + d0, "rank %d tid %d: slices do not tile the thread's time at %d ns (next at %d)" % (
                k[0], k[1], b0 + d0, b1)


def check_summary(run, tl):
    rep = run.report["timeline"]
    size = os.path.getsize(os.path.join(run.dir, "timeline.json"))
    assert rep["written"] and rep["bytes"] == size, "report.json says %s bytes, file has %d" % (rep["bytes"], size)
    kept = sum(1 for e in tl["traceEvents"] if e["ph"] == "X" and e.get("cat") in ("mpi", "compute"))
    assert rep["slices_kept"] == kept == tl["otherData"]["slices_kept"], "slices kept: report %d, file %d, header %d" % (
        rep["slices_kept"], kept, tl["otherData"]["slices_kept"])


def slices(tl, rank, name):
    return [e for e in tl["traceEvents"] if e["ph"] == "X" and e.get("cat") == "mpi" and e["pid"] == rank and e["name"] == name]


def check_uncapped(run):
    tl = load(run)
    assert not tl["otherData"]["capped"], "a short run's timeline must not be capped"
    check_tracks(tl, run.np)
    check_path(run, tl)
    check_every_call(run, tl)
    check_summary(run, tl)
    return tl
