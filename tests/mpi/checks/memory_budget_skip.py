"""analysis_mem= below what the replay needs: the application still runs to completion with its
own output, the report says plainly that the analysis was skipped and why (estimate against
the limit, the cause in analysis.approximations), every rank's trace is written although
dump=0, and cpath-ref analyses those traces offline."""
import glob
import os
import re
import subprocess


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    finals = re.findall(r"finalize rank \d+ cpu_ns", run.stdout)
    assert len(finals) == run.np, "the application's own output is incomplete: %s" % run.stdout[-400:]
    mb = rep["analysis"]["memory_budget"]
    assert not mb["analysed"], mb
    assert mb["need_bytes"] > mb["limit_bytes"], mb
    assert mb["source"].startswith("analysis_mem="), mb
    assert "Analysis skipped" in mb["note"] and "cpath-ref" in mb["note"], mb["note"]
    causes = [a["cause"] for a in rep["analysis"]["approximations"]]
    assert "analysis_skipped_memory" in causes and not rep["analysis"]["exact"], causes
    assert rep["trace"]["events_total"] > 0, rep["trace"]
    with open(os.path.join(run.dir, "report.txt")) as f:
        text = f.read()
    assert "Analysis skipped: replaying" in text, "report.txt does not say the analysis was skipped"
    # Nothing the replay computes is shown as if measured (a 0 s path, 0 messages).
    assert "Elapsed and critical path: not measured" in text, text[:400]
    for absent in ("Critical path:", "--- Critical path by rank", "--- Communication", "--- Start-up", "--- Hotspots"):
        assert absent not in text, "report.txt shows %r although nothing was replayed" % absent
    # ... nor in report.json, whose communication section named those files.
    for section in ("communication", "startup", "placement"):
        assert section not in rep, "report.json has %r although nothing was replayed" % section
    for csv in ("comm_p2p.csv", "comm_collectives.csv", "comm_histogram.csv", "startup.csv"):
        assert not os.path.exists(os.path.join(run.dir, csv)), csv + " written although nothing was replayed"
    traces = sorted(glob.glob(os.path.join(run.dir, "trace.*.cpt")))
    assert len(traces) == run.np, "traces written: %s" % traces
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref_bin, run.dir], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, "cpath-ref failed on the kept traces: " + out.stderr[-500:]
    segs = [l for l in out.stdout.splitlines() if l.split()[1:2] in (["mpi"], ["compute"], ["startup"])]
    assert len(segs) > 100, "cpath-ref found no critical path in the kept traces: %s" % out.stdout[-300:]
