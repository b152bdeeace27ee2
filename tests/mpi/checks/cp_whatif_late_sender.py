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
    # earlier, rank 1 right after its send, the others as measured; then the second barrier
    # and MPI_Finalize, where rank 1 no longer computes either.
    bars, fin = {}, {}
    for e in mpi:
        if e["name"] == "MPI_Barrier":
            bars.setdefault(e["pid"], []).append((e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6))
        if e["name"] == "MPI_Finalize":
            fin[e["pid"]] = e["ts"] * 1e-6
    assert all(len(b) == 2 for b in bars.values()) and len(fin) == len(bars), "expected two barriers and MPI_Finalize per rank"
    for b in bars.values():
        b.sort()
    bar = {p: b[0][0] for p, b in bars.items()}
    arrive = dict(bar)
    arrive[0] = bar[0] - delay
    arrive[1] = (init1[0]["ts"] + init1[0]["dur"] + send[0]["dur"]) * 1e-6
    # A barrier's members all leave it their measured time after its last arrival, so every
    # member's exit moves by as much as the last arrival did.
    shift1 = max(bar.values()) - max(arrive.values())
    # The second barrier: rank 1, its computation removed, arrives as it leaves the first.
    bar2 = {p: b[1][0] for p, b in bars.items()}
    arrive2 = {p: t - shift1 for p, t in bar2.items()}
    arrive2[1] = bars[1][0][1] - shift1
    shift2 = max(bar2.values()) - max(arrive2.values())
    # Then MPI_Finalize, the end of the run, as much earlier (rank 1: right after its barrier).
    new_fin = {p: t - shift2 for p, t in fin.items()}
    new_fin[1] = bars[1][1][1] - shift2
    delay = max(fin.values()) - max(new_fin.values())
    gain = row(run, "user", "rank1")["gain_s"]
    assert abs(gain - delay) <= 1e-5, "sender's computation removed gains %.6f s, the delay was %.6f s" % (gain, delay)
