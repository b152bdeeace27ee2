"""cp_known imbalance (rank 2 computes 60 ms, the others 10 ms, before each of 8 Allreduces),
with whatif=rank2:0.1666667,rank0:0.5: making the slow rank's kernel as fast as the others'
gains exactly its excess, i.e. how much later than the last other rank it entered each
Allreduce (read from timeline.json's MPI slices; about 8 x 50 ms on a quiet machine, less when
the others lose the CPU); making a rank that is never last faster gains nothing."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import row


def check(run):
    slow = 2 if run.np > 2 else run.np - 1
    fast_rank = 0
    tl = json.load(open(os.path.join(run.dir, "timeline.json")))
    ev = tl["traceEvents"] if isinstance(tl, dict) else tl
    begins = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "mpi" and e["name"] == "MPI_Allreduce":
            begins.setdefault(e["pid"], []).append(e["ts"] * 1e-6)
    for r in begins:
        begins[r].sort()
    assert all(len(begins.get(r, [])) == 8 for r in range(run.np)), "expected 8 Allreduces per rank"
    late = [begins[slow][k] - max(begins[r][k] for r in range(run.np) if r != slow) for k in range(8)]
    assert all(x > 0 for x in late), "the slow rank was not the last at every Allreduce: %s" % late
    excess = sum(late)
    gain = row(run, "user", "rank%d" % slow)["gain_s"]
    assert abs(gain - excess) <= 1e-3 + 0.01 * excess, \
        "slow rank at the others' speed gains %.6f s, its excess was %.6f s (%s)" % (gain, excess, late)
    other = row(run, "user", "rank%d" % fast_rank)["gain_s"]
    assert abs(other) <= 1e-6, "a rank that is never last 2x faster gains %.6f s, expected 0" % other
