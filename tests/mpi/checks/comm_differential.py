"""The sequential reference (cpath-ref --comm over the dumped traces, its own request
tracking and rules) must write the same communication files as the distributed analysis,
byte for byte."""
import os
import subprocess
import tempfile


def check(run):
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    with tempfile.TemporaryDirectory(prefix="cpath-comm-ref-") as out:
        compare(run, ref_bin, out)
    # Without OUTDIR the matrix goes to stdout in the same format.
    r = subprocess.run([ref_bin, "--comm", run.dir], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == open(os.path.join(run.dir, "comm_p2p.csv")).read()


def compare(run, ref_bin, out):
    r = subprocess.run([ref_bin, "--comm", run.dir, out], capture_output=True, text=True)
    assert r.returncode == 0, "cpath-ref --comm failed: " + r.stderr
    for name in ("comm_p2p.csv", "comm_collectives.csv", "comm_histogram.csv"):
        got = open(os.path.join(run.dir, name)).read().splitlines()
        ref = open(os.path.join(out, name)).read().splitlines()
        # Every program checked here sends point-to-point messages and calls collectives: an
        # empty file on both sides would compare equal and prove nothing.
        assert len(got) > 1, "%s has no data rows" % name
        if got != ref:
            extra = sorted(set(got) - set(ref))[:10]
            missing = sorted(set(ref) - set(got))[:10]
            raise AssertionError("%s differs from the reference: only in libcpath's %s, only in the reference's %s"
                                 % (name, extra, missing))
