"""cp_known pipeline (rank r receives from r-1, computes 10 ms, sends to r+1) with
whatif=rank1:0,rank1+rank2:0: each stage removed shortens the run by that stage's time (from
the end of its MPI_Recv to the begin of its MPI_Send), as far as the later stages waited for
it: a receiver that was waited on for less than the time gained passes only its wait on; the
last stage passes on what it was later than the others at the final barrier. The run ends at
the last MPI_Finalize entry: every rank leaves the barrier that much earlier, and a removed
rank's work between the barrier and MPI_Finalize goes too (a rank descheduled there, last to
enter MPI_Finalize, made the gain 37 us more than the barrier's on a loaded CI). All from the
measured times in timeline.json, so the machine's load does not change the verdict."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import row


def check(run):
    tl = json.load(open(os.path.join(run.dir, "timeline.json")))
    ev = tl["traceEvents"] if isinstance(tl, dict) else tl
    t = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "mpi":
            t[(e["pid"], e["name"])] = (e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6)
    n = run.np
    assert all(t[(r, "MPI_Recv")][0] < t[(r - 1, "MPI_Send")][0] for r in range(1, n)), \
        "not a pipeline: a receive was posted after its send began"

    def expected(removed):
        # How much earlier each rank reaches the final barrier; the run ends after its last one.
        arrive = {0: t[(0, "MPI_Barrier")][0]}
        g = 0.0  # how much earlier rank r-1's send begins
        for r in range(1, n):
            # How long the receiver waited; a rank whose compute is removed posts its receive
            # as soon as it leaves MPI_Init.
            posted = t[(r, "MPI_Init")][1] if r in removed else t[(r, "MPI_Recv")][0]
            g = max(0.0, min(g, t[(r - 1, "MPI_Send")][0] - posted))
            if r in removed and r < n - 1:
                g += t[(r, "MPI_Send")][0] - t[(r, "MPI_Recv")][1]
            after = t[(r, "MPI_Send" if r < n - 1 else "MPI_Recv")][1]
            arrive[r] = t[(r, "MPI_Barrier")][0] - g - (t[(r, "MPI_Barrier")][0] - after if r in removed else 0)
        at_barrier = max(t[(r, "MPI_Barrier")][0] for r in range(n)) - max(arrive.values())
        end = max(t[(r, "MPI_Finalize")][0] for r in range(n))
        new_end = max(t[(r, "MPI_Barrier")][1] - at_barrier +
                      (0.0 if r in removed else t[(r, "MPI_Finalize")][0] - t[(r, "MPI_Barrier")][1]) for r in range(n))
        return end - new_end

    for target, removed in (("rank1", {1}), ("rank1+rank2", {1, 2})):
        gain = row(run, "user", target)["gain_s"]
        want = expected(removed)
        stages = sum(t[(r, "MPI_Send")][0] - t[(r, "MPI_Recv")][1] for r in removed)
        assert want > 0.001, "the later stages hardly waited (machine load?): expected %.6f of %.6f s" % (want, stages)
        assert abs(gain - want) <= 2e-5, "%s removed gains %.6f s, expected %.6f s (stage time %.6f s)" % (
            target, gain, want, stages)
