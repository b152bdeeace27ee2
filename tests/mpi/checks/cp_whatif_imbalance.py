"""cp_known imbalance (rank 2 computes 120 ms, the others 10 ms, before each of 8 Allreduces),
with whatif=rank2:0.0833333,rank0:0.5,rank1:0.5,rank3:0.5: making the slow rank's kernel as fast
as the others' gains exactly its excess, i.e. how much later than the last other rank it
entered each Allreduce (from timeline.json's MPI slices: about 8 x 110 ms on a quiet machine,
less when the others lose the CPU); making a rank that was never the last to arrive faster
gains nothing (at most what it made the others wait, under load). The new critical paths: as
measured, the slow rank's kernel (compute before an MPI_Allreduce on it) is the path's top
activity, more than half of the run; with that kernel at the others' speed it shrinks 12x
wherever the path still takes it, so the new path's top activity is at most half the old one's
time, and on the slow rank only at the kernel's new size."""
import json, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import row


def check(run):
    slow = 2 if run.np > 2 else run.np - 1
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
    excess = sum(max(0.0, x) for x in late)
    assert excess > 0.05, "the slow rank was hardly late (machine too loaded?): %s" % late
    gain = row(run, "user", "rank%d" % slow)["gain_s"]
    assert abs(gain - excess) <= 1e-3 + 0.01 * excess, \
        "slow rank at the others' speed gains %.6f s, its excess was %.6f s (%s)" % (gain, excess, late)
    # Who came last to each collective (the 8 Allreduces, the final Barrier) and to MPI_Finalize
    # (the run ends at the last MPI_Finalize entry).
    coll = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "mpi" and e["name"] in ("MPI_Allreduce", "MPI_Barrier", "MPI_Finalize"):
            coll.setdefault(e["pid"], []).append(e["ts"])
    for r in coll:
        coll[r].sort()
    # A faster rank other than the slow one gains at most what it made the others wait (how
    # much later than everyone else it came, where it came last): nothing if it never did.
    n = len(coll[0])
    for r in range(run.np):
        if r == slow:
            continue
        bound = sum(max(0, coll[r][k] - max(coll[q][k] for q in range(run.np) if q != r)) for k in range(n)) * 1e-6
        g = row(run, "user", "rank%d" % r)["gain_s"]
        assert -1e-9 <= g <= bound + 1e-6, "rank %d 2x faster gains %.6f s; it made the others wait %.6f s" % (r, g, bound)

    # The new critical path (report.json what_if[].path_top), from the program's construction:
    # rank 2 comes last to every Allreduce, so its 7 kernels between them (7 x 120 ms) are on the
    # measured path; made as fast as the others', they shrink 12x where still on the new path, and
    # the new path's kernel rows are at most half the old one (MPI_Init and the start-up, which a
    # loaded machine can make long, are not the kernel).
    def kernels(r):
        return [t for t in r["path_top"] if t["activity"].startswith("compute between MPI_Allreduce")]
    ident = row(run, "identity")
    old = [t for t in kernels(ident) if t["rank"] == slow]
    assert old and old[0]["time_s"] >= 0.5 * 7 * 0.120, \
        "as measured, rank %d's kernel should be on the path's top: %s" % (slow, ident["path_top"])
    fast = row(run, "user", "rank%d" % slow)
    for t in kernels(fast):
        assert t["time_s"] <= 0.5 * old[0]["time_s"], "slow kernel at the others' speed: new path %s, old %s" % (t, old)
        if t["rank"] == slow:
            assert t["time_s"] <= old[0]["time_s"] * 0.0833333 + 1e-3, (t, old)
