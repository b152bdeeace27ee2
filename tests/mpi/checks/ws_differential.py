"""Wait states and their root causes from the distributed analysis (waits.<rank>.txt, option
path=1) must equal the sequential reference's (cpath-ref --waits over the dumped traces), line
by line: every waiting call, its pattern, partner, wait start, partner begin and whether the path
passes it; every delaying call with its short- and long-term waiting caused."""
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
