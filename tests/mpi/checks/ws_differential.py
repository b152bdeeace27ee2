"""Wait states and their root causes from the distributed analysis (waits.<rank>.txt, option
path=1) must equal the sequential reference's (cpath-ref --waits over the dumped traces), line
by line: every waiting call, its pattern, partner, wait start, partner begin and whether the path
passes it; every delaying call with its short- and long-term waiting caused. The POP factors
must equal cpath-ref --pop's (its own re-timing of the ideal run, its own useful compute)."""
import os
import subprocess


def check(run):
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref_bin, "--waits", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-ref --waits failed: " + out.stderr
    ref = sorted(tuple(l.split()) for l in out.stdout.splitlines() if l.strip())
    dist = []
    for r in range(run.np):
        with open(os.path.join(run.dir, "waits.%d.txt" % r)) as f:
            for line in f:
                p = line.split()
                if p:
                    dist.append(tuple([p[0], str(r)] + p[1:]))
    dist.sort()
    if any(a.endswith(("cp_random_app", "ws_known")) for a in run.cmd):
        assert any(l[0] == "W" for l in ref), "the reference found no wait at all: the test proves nothing"
    if dist != ref:
        a, b = set(dist), set(ref)
        raise AssertionError("wait states differ: only distributed %s; only reference %s (of %d / %d)" %
                             (sorted(a - b)[:5], sorted(b - a)[:5], len(dist), len(ref)))
    check_pop(run, ref_bin)


def check_pop(run, ref_bin):
    rep = run.report
    if rep is None or rep.get("efficiency") is None:
        return
    e, d = rep["efficiency"], rep["efficiency_detail"]
    if "re-timed" not in d["ideal_source"]:
        return  # whatif=0: the lower-bound ideal run, which the reference does not estimate
    out = subprocess.run([ref_bin, "--pop", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-ref --pop failed: " + out.stderr
    ref = {}
    for line in out.stdout.splitlines():
        p = line.split()
        if len(p) == 2:
            ref[p[0]] = p[1]
    assert "efficiency" not in ref, "the reference has no POP factors: %s" % out.stdout
    mine = dict(e)
    mine.update({k: d[k] for k in ("elapsed_s", "useful_max_s", "useful_mean_s", "ideal_s")})
    for k, v in mine.items():
        # The report prints 9 significant digits; both sides compute from the same ns integers.
        assert abs(float(ref[k]) - v) <= 1e-8 * max(1.0, abs(v)) + 2e-9, \
            "POP %s: distributed %s, reference %s" % (k, v, ref[k])
