"""Collectives the MPI library did not synchronise (rule 4): the report counts the calls that
ended before a member they are modelled to wait for began, beyond the clocks' error; the
sequential reference, which decides it from the aligned times on its own, counts the same, and
the text report says so on one line exactly when there are some."""
import os
import subprocess


def check(run):
    c = run.report["analysis"]["clock"]
    n = c["unsynchronised_collective_calls"]
    ref = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref, "--summary", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    s = dict(l.split()[:2] for l in out.stdout.splitlines() if l.startswith("clock_"))
    assert int(s["clock_unsynchronised"]) == n, (s, c)
    assert ("Collectives not synchronised by MPI: %d call" % n in run.stdout) == (n > 0), run.stdout[:2000]
