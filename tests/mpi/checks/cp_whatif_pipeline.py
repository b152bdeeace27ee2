"""cp_known pipeline (rank r receives from r-1, computes 10 ms, sends to r+1) with
whatif=rank1:0,rank1+rank2:0: each stage removed shortens the run by that stage's time (from
the end of its MPI_Recv to the begin of its MPI_Send, read from timeline.json), one stage and
two stages, when the run was a pipeline (every receiver waited for its sender, the last stage
came last to the final barrier). On a machine so loaded that it was not, the gain is still
between 0 and the stages' time."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import row


def check(run):
    tl = json.load(open(os.path.join(run.dir, "timeline.json")))
    ev = tl["traceEvents"] if isinstance(tl, dict) else tl
    mpi = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "mpi":
            mpi[(e["pid"], e["name"])] = (e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6)
    n = run.np
    stage = {r: mpi[(r, "MPI_Send")][0] - mpi[(r, "MPI_Recv")][1] for r in range(1, n - 1)}
    pipeline = all(mpi[(r, "MPI_Recv")][0] < mpi[(r - 1, "MPI_Send")][0] for r in range(1, n)) and \
        all(mpi[(n - 1, "MPI_Barrier")][0] >= mpi[(r, "MPI_Barrier")][0] for r in range(n))
    one = row(run, "user", "rank1")["gain_s"]
    two = row(run, "user", "rank1+rank2")["gain_s"]
    for gain, expect, what in ((one, stage[1], "one stage"), (two, stage[1] + stage[2], "two stages")):
        if pipeline:
            assert abs(gain - expect) <= 1e-5, "%s removed gains %.6f s, the stage time is %.6f s" % (what, gain, expect)
        else:
            assert -1e-9 <= gain <= expect + 1e-5, "%s removed gains %.6f s, more than the stage time %.6f s" % (
                what, gain, expect)
    if not pipeline:
        print("note: the run was not a pipeline (machine load): gains only bounded")
