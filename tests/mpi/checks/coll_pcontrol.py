"""MPI_Pcontrol records: the levels recorded, in order, must be exactly the ones the program
lists in its "pcontrol_levels" directive, none of them flagged as an error, and the last
record of every rank must be MPI_Finalize."""
import os
import re
import subprocess


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    for rank in range(run.np):
        path = os.path.join(expect_dir, "directives.%d.txt" % rank)
        assert os.path.exists(path), "rank %d wrote no directives" % rank
        levels = None
        for line in open(path):
            if line.startswith("pcontrol_levels"):
                levels = [int(x) for x in line.split()[1:]]
        assert levels is not None, "rank %d: no pcontrol_levels directive" % rank
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        events = [l for l in out.stdout.splitlines() if l and not l.startswith("#")]
        pc = [l for l in events if " MPI_Pcontrol " in l]
        got = []
        for l in pc:
            m = re.search(r" aux=(-?\d+)", l)
            assert m, "Pcontrol record without a level: %s" % l
            got.append(int(m.group(1)))
            assert not l.endswith(" error") and " error " not in l, "rank %d: Pcontrol flagged as an error: %s" % (rank, l)
        assert got == levels, "rank %d: recorded Pcontrol levels %s, expected %s" % (rank, got, levels)
        assert events and " MPI_Finalize " in events[-1], "rank %d: last record is not MPI_Finalize: %s" % (
            rank, events[-1] if events else None)
