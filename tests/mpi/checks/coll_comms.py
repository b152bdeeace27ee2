"""coll_comms: communicators whose summary names or world peers the program cannot state
exactly, listed as directives (the point-to-point line with the communicator name left out):

  idup <kind> <call> peer=P wpeer=W tag=T count=C bytes=B
      on the MPI_Comm_idup'ed communicator: named after its parent ("world.dup<n>"); it
      must be one and the same on every rank (all ranks idup'ed the same parent) and used by
      nothing else;
  inter <kind> <call> peer=P wpeer=W tag=T count=C bytes=B
      on an intercommunicator between two groups of the job: named "i<16 hex digits>" (its
      key, which names the pair of groups), the same name on both sides; the world peer is
      the remote group's rank P, W exactly.
"""
import os
import re


def one(summary, rank, pattern, what):
    hits = [m for m in map(pattern.match, summary) if m]
    assert len(hits) == 1, "rank %d: expected one %s line, found %d:\n%s" % (rank, what, len(hits), "\n".join(summary))
    return hits[0]


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    idup_names = set()
    inter_names = set()
    for rank in range(run.np):
        path = os.path.join(expect_dir, "directives.%d.txt" % rank)
        assert os.path.exists(path), "rank %d wrote no directives" % rank
        directives = [l.split() for l in open(path) if l.strip()]
        assert any(d[0] == "idup" for d in directives), "rank %d: no idup directives" % rank
        summary = run.summary(rank)
        for d in directives:
            kind, call, peer, wpeer, rest = d[1], d[2], d[3], d[4], " ".join(d[5:])
            if d[0] == "idup":
                pat = re.compile(r"rank %d %s %s comm=(world\.dup\d+) %s %s %s$" % (
                    rank, kind, call, re.escape(peer), re.escape(wpeer), re.escape(rest)))
                idup_names.add(one(summary, rank, pat, "idup '%s'" % " ".join(d)).group(1))
            elif d[0] == "inter":
                pat = re.compile(r"rank %d %s %s comm=(i[0-9a-f]{16}) %s %s %s$" % (
                    rank, kind, call, re.escape(peer), re.escape(wpeer), re.escape(rest)))
                inter_names.add(one(summary, rank, pat, "intercommunicator '%s'" % " ".join(d)).group(1))
    # One intercommunicator, one name on both of its sides.
    assert len(inter_names) == 1, "the intercommunicator has several names: %s" % sorted(inter_names)
    assert len(idup_names) == 1, "the idup'ed communicator has different names on different ranks: %s" % sorted(
        idup_names)
    name = idup_names.pop()
    for rank in range(run.np):
        for line in run.summary(rank):
            if "comm=%s " % name in line:
                assert " tag=31 " in line, "rank %d: another operation claims the idup name: %s" % (rank, line)
