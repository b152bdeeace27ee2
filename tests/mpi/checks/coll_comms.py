"""coll_comms: the MPI_Comm_idup'ed communicator has a hashed name ("i" + 16 hex digits). The
program lists, as "idup ..." directives, the point-to-point lines it expects on it with the
communicator name left out; this check finds each of them with an i-name, and requires one
and the same name on every rank (all ranks idup'ed the same parent) that no other
communicator uses."""
import os
import re


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    names = set()
    for rank in range(run.np):
        path = os.path.join(expect_dir, "directives.%d.txt" % rank)
        assert os.path.exists(path), "rank %d wrote no directives" % rank
        wanted = [l.split(" ", 1)[1].strip() for l in open(path) if l.startswith("idup ")]
        assert wanted, "rank %d: no idup directives" % rank
        summary = run.summary(rank)
        for w in wanted:
            kind, call, rest = w.split(" ", 2)
            pat = re.compile(r"rank %d %s %s comm=(i[0-9a-f]{16}) %s$" % (rank, kind, call, re.escape(rest)))
            hits = [m.group(1) for m in map(pat.match, summary) if m]
            assert len(hits) == 1, "rank %d: expected one '%s %s comm=i... %s' line, found %d:\n%s" % (
                rank, kind, call, rest, len(hits), "\n".join(summary))
            names.add(hits[0])
    assert len(names) == 1, "the idup'ed communicator has different names on different ranks: %s" % sorted(names)
    name = names.pop()
    # and no other communicator is called the same
    for rank in range(run.np):
        for line in run.summary(rank):
            if "comm=%s " % name in line:
                assert " tag=31 " in line, "rank %d: another operation claims the idup name: %s" % (rank, line)
