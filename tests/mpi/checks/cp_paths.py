"""Helpers for checks that read the distributed path files (option path=1)."""
import os


def load_path(run):
    segs = []
    for r in range(run.np):
        with open(os.path.join(run.dir, "path.%d.txt" % r)) as f:
            for line in f:
                p = line.split()
                segs.append({"rank": int(p[0]), "kind": p[1], "begin": int(p[2]), "end": int(p[3]), "event": int(p[4])})
    segs.sort(key=lambda s: (s["begin"], s["end"]))
    return segs


def time_by_rank(segs, kind=None):
    out = {}
    for s in segs:
        if kind is None or s["kind"] == kind:
            out[s["rank"]] = out.get(s["rank"], 0) + (s["end"] - s["begin"]) * 1e-9
    return out


def check_invariant(run):
    rep = run.report
    assert rep is not None, "no report.json"
    cp, span = rep["critical_path"], rep["elapsed_s"]
    assert abs(cp["length_s"] - span) <= 0.01 * span, "critical path %g s but span %g s" % (cp["length_s"], span)
