"""Helpers for the what-if checks: report.json's what_if rows and the run's whatif.<rank>.txt."""
import os
import re
import subprocess


def halo_what_if_info(run):
    """bench/halo_bench's run: the report is there, every rank printed its finalize line (the
    application ran to completion), and the what-if's info with its note."""
    rep = run.report
    assert rep is not None, "no report.json"
    finals = re.findall(r"finalize rank \d+ cpu_ns", run.stdout)
    assert len(finals) == run.np, "the application's own output is incomplete: %s" % run.stdout[-400:]
    w = rep.get("what_if_info") or {}
    return rep, w, w.get("note", "")


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


def paths(run):
    """The run's new critical paths: ({scenario: rank changes}, {(scenario, rank, key): ns}) from
    rank 0's path_rank_changes lines and every rank's "path" lines."""
    changes, acts = {}, {}
    r = 0
    while os.path.exists(os.path.join(run.dir, "whatif.%d.txt" % r)):
        with open(os.path.join(run.dir, "whatif.%d.txt" % r)) as f:
            for line in f:
                p = line.split()
                if p and p[0] == "path_rank_changes":
                    changes[int(p[1])] = int(p[2])
                elif p and p[0] == "path":
                    acts[(int(p[1]), r, " ".join(p[2:-1]))] = int(p[-1])
        r += 1
    return changes, acts


def reference_paths(run):
    """cpath-ref --whatif's new critical paths, in the form of paths()."""
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref_bin, "--whatif", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-ref --whatif failed: " + out.stderr
    changes, acts = {}, {}
    for line in out.stdout.splitlines():
        p = line.split()
        if p and p[0] == "path_rank_changes":
            changes[int(p[1])] = int(p[2])
        elif p and p[0] == "path":
            acts[(int(p[1]), int(p[2]), " ".join(p[3:-1]))] = int(p[-1])
    return changes, acts
