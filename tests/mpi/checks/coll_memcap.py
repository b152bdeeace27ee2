"""Memory cap: every rank's trace header must say the store_state the program's directive
names ("spilled" for on_full=spill, "stopped" for on_full=stop). When spilled, every call
(directive "calls N") is in the trace; when stopped, fewer are, the trace ends with
MPI_Finalize, and nothing after the stop point was recorded (records are a prefix)."""
import os
import re
import subprocess


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    for rank in range(run.np):
        d = dict(l.split(None, 1) for l in open(os.path.join(expect_dir, "directives.%d.txt" % rank)) if l.strip())
        state, calls = d["store_state"].strip(), int(d["calls"])
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        lines = out.stdout.splitlines()
        header = [l for l in lines if l.startswith("# store_state=")]
        assert header == ["# store_state=%s" % state], "rank %d: expected '# store_state=%s', got %s" % (
            rank, state, header)
        events = [l for l in lines if l and not l.startswith("#")]
        m = re.match(r"rank %d events (\d+) " % rank, run.summary(rank)[0])
        assert m and int(m.group(1)) == len(events), "summary and event listing disagree"
        if state == "spilled":
            assert len(events) == calls, "rank %d: %d events recorded, the program made %d calls" % (
                rank, len(events), calls)
        else:
            assert 2 < len(events) < calls, "rank %d: %d events recorded of %d calls; expected a stop" % (
                rank, len(events), calls)
            assert " MPI_Init " in events[0] and " MPI_Finalize " in events[-1], \
                "rank %d: first/last records are not MPI_Init/MPI_Finalize" % rank
            # the recorded loop records are a prefix of the loop: Iprobe, Sendrecv, Isend,
            # Recv, Wait, Iprobe, ...
            cycle = ["MPI_Iprobe", "MPI_Sendrecv", "MPI_Isend", "MPI_Recv", "MPI_Wait"]
            for i, l in enumerate(events[1:-1]):
                name = l.split()[3]
                assert name == cycle[i % 5], "rank %d: record %d is %s, expected %s" % (rank, i + 1, name,
                                                                                         cycle[i % 5])
