"""A long run under a small timeline cap (timeline_max): the file stays under the cap, keeps the
whole critical path with its arrows, keeps only MPI calls inside the window it announces, and
the window lies around the path's heaviest part (where its longest segments are). cpath-report
can cap it again, smaller."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path  # noqa: E402
from timeline_checks import check_path, check_summary, check_tracks, load, ns, path_slices  # noqa: E402


def origin_of(tl):
    return tl["otherData"]["time_origin_ns"]


def cap_bytes(run):
    return run.report["timeline"]["cap_bytes"]


def check_path_in_window(run, tl):
    """A path cut to the window like the calls: what is kept is exactly the path's segments
    beginning in the window."""
    origin = origin_of(tl)
    v0, v1 = tl["otherData"]["window_ns"]
    expect = sorted(((s["rank"], s["kind"], s["begin"] - origin, s["end"] - s["begin"]) for s in load_path(run)
                     if s["end"] > s["begin"] and v0 <= s["begin"] - origin < v1))
    got = sorted(path_slices(tl))
    assert got == expect, "path cut to the window: %d slices kept, %d path segments begin in [%d, %d)" % (
        len(got), len(expect), v0, v1)
    assert expect, "the window holds none of the path"


def check(run):
    tl = load(run)
    od = tl["otherData"]
    cap = cap_bytes(run)
    size = os.path.getsize(os.path.join(run.dir, "timeline.json"))
    assert size <= cap, "timeline.json is %d bytes, over the cap of %d" % (size, cap)
    assert od["capped"] and run.report["timeline"]["capped"], "the cap was not reached: make the run longer"
    assert od["note"] and od["note"] == run.report["timeline"]["note"], "the file and the report must say why"
    assert "size cap" in open(os.path.join(run.dir, "report.txt")).read(), "report.txt does not mention the cap"
    check_tracks(tl, run.np)
    if "so the path" in od["note"]:
        # Under load the path may have more hand-offs than the cap holds: cut to the window.
        check_path_in_window(run, tl)
        segs = load_path(run)
    else:
        segs = check_path(run, tl)
    check_summary(run, tl)
    assert od["slices_kept"] < od["slices_total"], "capped but nothing left out"

    # Only slices beginning inside the announced window.
    w0, w1 = od["window_ns"]
    for e in tl["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "mpi":
            t = ns(e["ts"])
            assert w0 <= t < w1, "MPI call at %d ns outside the window [%d, %d)" % (t, w0, w1)

    # The heaviest part of the path, recomputed here from the path files: per 1/1024 of the run,
    # the sum over segments of length x overlap (start-up, MPI_Init and MPI_Finalize excluded).
    calls = {}
    for e in tl["traceEvents"]:
        if e["ph"] == "X" and e.get("cat") == "critical_path":
            calls[(e["pid"], ns(e["ts"]) + origin_of(tl))] = e["name"]
    origin, span = od["time_origin_ns"], int(round(od["span_s"] * 1e9))
    width = span / 1024.0
    weight = [0.0] * 1024
    for s in segs:
        b, e = s["begin"] - origin, s["end"] - origin
        if e <= b or s["kind"] == "startup" or calls.get((s["rank"], s["begin"])) in ("MPI_Init", "MPI_Init_thread",
                                                                                      "MPI_Finalize"):
            continue
        for k in range(max(0, int(b // width)), min(1023, int((e - 1) // width)) + 1):
            lo, hi = max(b, k * width), min(e, (k + 1) * width)
            if hi > lo:
                weight[k] += (e - b) * (hi - lo)
    heavy = weight.index(max(weight)) * width
    assert w0 - width <= heavy <= w1 + width, "window [%d, %d) misses the path's heaviest part at %d ns" % (w0, w1, heavy)

    # cpath-report under a smaller cap: still under it, still the whole path.
    tool = os.environ.get("CPATH_REPORT_TOOL")
    assert tool, "CPATH_REPORT_TOOL not set"
    smaller = max(64 << 10, size * 3 // 4)
    r = subprocess.run([tool, "--timeline-max", str(smaller), run.dir], capture_output=True, text=True)
    assert r.returncode == 0, "cpath-report failed: %s" % r.stderr
    size2 = os.path.getsize(os.path.join(run.dir, "timeline.json"))
    tl2 = load(run)
    if size2 > smaller:
        assert "alone" in tl2["otherData"]["note"], "over the smaller cap without saying the path alone is larger"
    if "so the path" in tl2["otherData"]["note"]:
        # The path alone outgrew the smaller cap (a path with many hand-offs: Open MPI's held
        # sends put every lu_wavefront message on it).
        check_path_in_window(run, tl2)
    else:
        check_path(run, tl2)
    assert tl2["otherData"]["slices_kept"] <= od["slices_kept"], "a smaller cap kept more"
    assert tl2["otherData"]["slices_total"] == od["slices_total"], "the run's total must stay the run's"
