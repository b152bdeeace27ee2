"""coll_init_bypassed: MPI initialised without an MPI_Init wrapper. One line for the job on
stderr (rank 0's), nothing recorded."""
import os

LINE = "libcpath: MPI was initialised without passing through libcpath"


def check(run):
    lines = [l for l in run.stderr.splitlines() if l.startswith(LINE)]
    assert len(lines) == 1, "want one line starting '%s', got %d in:\n%s" % (LINE, len(lines), run.stderr)
    traces = [f for f in os.listdir(run.dir)] if os.path.isdir(run.dir) else []
    assert not any(f.startswith("trace.") for f in traces), "a trace was written: %s" % traces
