"""analysis.phases names phases for what they do: a "trace dump" phase exists iff traces were
dumped (dump=1), and the report directory / spill release have phases of their own."""
import glob
import os


def check(run):
    phases = run.report["analysis"]["phases"]
    dumped = bool(glob.glob(os.path.join(run.dir, "trace.*.cpt")))
    assert ("trace dump" in phases) == dumped, "phases %s with%s trace files" % (list(phases), "" if dumped else "out")
    for p in ("report directory", "spill release"):
        assert p in phases, "no phase '%s' in %s" % (p, list(phases))
    if run.report.get("timeline", {}).get("written"):
        assert "timeline write" in phases, "timeline written but no 'timeline write' phase: %s" % list(phases)
