"""cp_known late_sender (rank 1 computes 60 ms before sending to rank 0, which waits in
MPI_Recv) with whatif=rank1:0: removing the sender's computation gains the delay, i.e. how
much later the send began than the receive, or than the sender left MPI_Init if that was later
(it cannot send before), as far as the final barrier lets it through (all read from
timeline.json's MPI slices)."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import row


def check(run):
    tl = json.load(open(os.path.join(run.dir, "timeline.json")))
    ev = tl["traceEvents"] if isinstance(tl, dict) else tl
    mpi = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "mpi"]
    recv = [e for e in mpi if e["pid"] == 0 and e["name"] == "MPI_Recv"]
    send = [e for e in mpi if e["pid"] == 1 and e["name"] == "MPI_Send"]
    assert len(recv) == 1 and len(send) == 1, "expected one MPI_Recv on rank 0 and one MPI_Send on rank 1"
    init1 = [e for e in mpi if e["pid"] == 1 and e["name"] == "MPI_Init"]
    assert len(init1) == 1, "expected one MPI_Init on rank 1"
    delay = (send[0]["ts"] - max(recv[0]["ts"], init1[0]["ts"] + init1[0]["dur"])) * 1e-6
    assert delay >= 0.01, "the sender was only %.6f s late" % delay
    # The run ends after the last rank reaches the final barrier: rank 0 comes the delay
    # earlier, rank 1 right after its send, the others as measured.
    bar = {}
    for e in mpi:
        if e["name"] == "MPI_Barrier":  # the first of the two
            bar[e["pid"]] = min(bar.get(e["pid"], 1e300), e["ts"] * 1e-6)
    arrive = dict(bar)
    arrive[0] = bar[0] - delay
    arrive[1] = (init1[0]["ts"] + init1[0]["dur"] + send[0]["dur"]) * 1e-6
    delay = max(bar.values()) - max(arrive.values())
    gain = row(run, "user", "rank1")["gain_s"]
    assert abs(gain - delay) <= 1e-5, "sender's computation removed gains %.6f s, the delay was %.6f s" % (gain, delay)
