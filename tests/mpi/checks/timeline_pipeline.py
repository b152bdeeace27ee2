"""timeline.json of the one-sweep pipeline (cp_known pipeline): tracks, path, arrows, every call
with its arguments; cpath-report renders the same file again from timeline.bin."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from timeline_checks import check_uncapped, slices  # noqa: E402


def check(run):
    tl = check_uncapped(run)
    for r in range(run.np):
        if r > 0:
            (recv,) = slices(tl, r, "MPI_Recv")
            a = recv["args"]
            assert (a["peer"], a["tag"], a["comm"]) == (r - 1, 5, "world"), "rank %d MPI_Recv args %s" % (r, a)
            assert a["site"].startswith("cp_known.c:"), "call site %s" % a["site"]
        if r < run.np - 1:
            (send,) = slices(tl, r, "MPI_Send")
            a = send["args"]
            assert (a["peer"], a["tag"], a["bytes"], a["comm"]) == (r + 1, 5, 8, "world"), "rank %d MPI_Send args %s" % (r, a)
    # Regenerating from timeline.bin gives the same file.
    tool = os.environ.get("CPATH_REPORT_TOOL")
    assert tool, "CPATH_REPORT_TOOL not set"
    path = os.path.join(run.dir, "timeline.json")
    before = open(path, "rb").read()
    r = subprocess.run([tool, run.dir], capture_output=True, text=True)
    assert r.returncode == 0, "cpath-report failed: %s" % r.stderr
    assert open(path, "rb").read() == before, "cpath-report wrote a different timeline.json from timeline.bin"
