"""The distributed critical path (path.<rank>.txt, option path=1) must equal the sequential
reference's (cpath-ref over the dumped traces) segment by segment, and be contiguous."""
import os
import subprocess


def load_distributed(run):
    segs = []
    for r in range(run.np):
        with open(os.path.join(run.dir, "path.%d.txt" % r)) as f:
            for line in f:
                p = line.split()
                segs.append((int(p[2]), int(p[3]), int(p[0]), p[1], int(p[4])))
    return sorted(segs)


def check(run):
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref_bin, run.dir], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-ref failed: " + out.stderr
    ref = []
    for line in out.stdout.splitlines():
        p = line.split()
        ref.append((int(p[2]), int(p[3]), int(p[0]), p[1], int(p[4])))
    ref.sort()
    dist = load_distributed(run)
    assert dist, "the distributed walk produced no segments"
    if dist != ref:
        for i, (a, b) in enumerate(zip(dist, ref)):
            if a != b:
                raise AssertionError("segment %d differs: distributed %s, reference %s (of %d / %d)" % (i, a, b, len(dist), len(ref)))
        raise AssertionError("segment counts differ: distributed %d, reference %d" % (len(dist), len(ref)))
    # Contiguity: each segment starts where the previous one ended.
    for a, b in zip(dist, dist[1:]):
        assert a[1] == b[0], "path not contiguous between %s and %s" % (a, b)
    rep = run.report
    assert rep is not None, "no report.json"
    cp = rep["critical_path"]
    span = rep["elapsed_s"]
    assert abs(cp["length_s"] - span) <= 0.01 * span, "length %g vs span %g" % (cp["length_s"], span)
    assert abs(cp["compute_s"] + cp["mpi_s"] - cp["length_s"]) <= 1e-6 * max(1.0, span), "compute + mpi != length"
    assert abs(sum(cp["per_rank_s"]) - cp["length_s"]) <= 1e-6 * max(1.0, span), "per-rank shares do not add up"
