"""Helpers for the what-if checks: report.json's what_if rows and the run's whatif.<rank>.txt."""
import os
import subprocess


def rows(run):
    rep = run.report
    assert rep is not None, "no report.json"
    assert "what_if" in rep, "report.json has no what_if section: %s" % rep.get("what_if_info")
    return rep["what_if"]


def row(run, kind, target=None):
    for r in rows(run):
        if r["kind"] == kind and (target is None or r["target"] == target):
            return r
    raise AssertionError("no what-if row %s %s in %s" % (kind, target, [(r["kind"], r["target"]) for r in rows(run)]))


def results(run):
    """Rank 0's exact results: {scenario: run_ns}."""
    out = {}
    with open(os.path.join(run.dir, "whatif.0.txt")) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "result":
                out[int(p[1])] = int(p[3])
    return out


def reference(run):
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref_bin, "--whatif", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-ref --whatif failed: " + out.stderr
    res = {}
    for line in out.stdout.splitlines():
        p = line.split()
        if p and p[0] == "result":
            res[int(p[1])] = int(p[3])
    return res
