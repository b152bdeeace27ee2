"""Collective members that waited beyond their rooted, scan or neighbourhood pattern (docs/pag-rules.md rule 4):
the report counts them, the sequential reference, which decides them from the aligned times on
its own, counts the same, and the text report names them on one line exactly when there are
some."""
import os
import subprocess


def check(run):
    n = run.report["analysis"]["clock"]["collective_calls_beyond_pattern"]
    ref = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref, "--summary", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    s = dict(l.split()[:2] for l in out.stdout.splitlines() if l.startswith("collective_calls_beyond_pattern"))
    assert int(s["collective_calls_beyond_pattern"]) == n, (s, n)
    if "end of libcpath report" in run.stdout:
        line = "Collectives synchronised beyond their pattern: %d " % n
        assert (line in run.stdout) == (n > 0), (n, run.stdout[:2000])
