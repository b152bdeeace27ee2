"""Gap records (tests/mpi/coll_pcontrol_gaps.c): the collectives each rank made while paused,
counted per communicator, must be exactly the counts the program lists in its "gap_counts"
directive (sorted), and MPI_COMM_WORLD's must be the one it names."""
import os
import re
import subprocess


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    for rank in range(run.np):
        path = os.path.join(expect_dir, "directives.%d.txt" % rank)
        assert os.path.exists(path), "rank %d wrote no directives" % rank
        want = None
        for line in open(path):
            if line.startswith("gap_counts"):
                fields = dict(f.split("=", 1) for f in line.split()[1:])
                want = (int(fields["world"]), sorted(int(x) for x in fields["all"].split(",")))
        assert want is not None, "rank %d: no gap_counts directive" % rank
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        per_comm = {}
        for l in out.stdout.splitlines():
            m = re.match(r"# gap before=\d+ comm=(\S+) obj=\S+ collectives=(\d+)", l)
            if m:
                per_comm[m.group(1)] = per_comm.get(m.group(1), 0) + int(m.group(2))
        assert per_comm.get("world") == want[0], "rank %d: %s collectives on world while paused, expected %d (%s)" % (
            rank, per_comm.get("world"), want[0], per_comm)
        got = sorted(per_comm.values())
        assert got == want[1], "rank %d: paused collectives per communicator %s, expected %s (%s)" % (
            rank, got, want[1], per_comm)
