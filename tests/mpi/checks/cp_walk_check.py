"""Option walk=check: every rank writes the pointer-jumping walk's segments (path.<rank>.txt)
and the sequential walk's (path_sequential.<rank>.txt). They must be identical line by line —
same segments in the same order — and the path must change rank (or the test proves nothing)."""
import os


def check(run):
    ranks_on_path = set()
    for r in range(run.np):
        with open(os.path.join(run.dir, "path.%d.txt" % r)) as f:
            jump = f.read().splitlines()
        seq_file = os.path.join(run.dir, "path_sequential.%d.txt" % r)
        assert os.path.exists(seq_file), "walk=check wrote no %s" % seq_file
        with open(seq_file) as f:
            seq = f.read().splitlines()
        for i, (a, b) in enumerate(zip(jump, seq)):
            assert a == b, "rank %d segment %d: jumping %r, sequential %r" % (r, i, a, b)
        assert len(jump) == len(seq), "rank %d: %d jumping segments, %d sequential" % (r, len(jump), len(seq))
        if jump:
            ranks_on_path.add(r)
    assert len(ranks_on_path) > 1, "the path never left one rank: %s" % sorted(ranks_on_path)
    assert "walk=check" not in run.stdout, "the analysis reported a difference"
