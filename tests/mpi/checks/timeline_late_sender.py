"""timeline.json of the late-sender program (cp_known late_sender)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from timeline_checks import check_uncapped, slices  # noqa: E402


def check(run):
    tl = check_uncapped(run)
    (recv,) = slices(tl, 0, "MPI_Recv")
    (send,) = slices(tl, 1, "MPI_Send")
    assert (recv["args"]["peer"], recv["args"]["tag"]) == (1, 9), "rank 0 MPI_Recv args %s" % recv["args"]
    assert (send["args"]["peer"], send["args"]["tag"], send["args"]["bytes"]) == (0, 9, 8), "rank 1 MPI_Send %s" % send["args"]
    # The path arrives on rank 0 from rank 1 at the send: one arrow 1 -> 0 starting at the send's begin.
    arrows = [(e["pid"], e["ts"]) for e in tl["traceEvents"] if e["ph"] == "s" and e["pid"] == 1]
    assert any(abs(ts + 0.001 - send["ts"]) < 0.0015 for _, ts in arrows), \
        "no arrow leaves rank 1 at its MPI_Send (%.3f us): %s" % (send["ts"], arrows)
