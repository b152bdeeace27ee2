"""analysis.phases names phases for what they do: a "trace dump" phase exists iff traces were
dumped (dump=1), and spill release has a phase of its own (the report directory is agreed at
MPI_Init, so it has none)."""
import glob
import os


def check(run):
    phases = run.report["analysis"]["phases"]
    dumped = bool(glob.glob(os.path.join(run.dir, "trace.*.cpt")))
    assert ("trace dump" in phases) == dumped, "phases %s with%s trace files" % (list(phases), "" if dumped else "out")
    assert "report directory" not in phases, "the report directory is agreed at MPI_Init: %s" % list(phases)
    for p in ("spill release",):
        assert p in phases, "no phase '%s' in %s" % (p, list(phases))
    if run.report.get("timeline", {}).get("written"):
        assert "timeline write" in phases, "timeline written but no 'timeline write' phase: %s" % list(phases)
