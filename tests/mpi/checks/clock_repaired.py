"""Clocks distorted and deliberately not aligned (align=0): clock-condition violations exist and
the repair fixes every one of them; the sequential reference finds and repairs the same."""
import os
import subprocess


def check(run):
    a = run.report["analysis"]
    c = a["clock"]
    assert c["alignment"] == "disabled" and c["hosts"] == run.np and c["simulated_hosts"], c
    assert c["violations"] > 0, "no violation to repair: %s" % c
    assert c["repaired"] == c["violations"] and c["unrepaired"] == 0, c
    assert c["calls_shifted"] > 0 and c["max_shift_s"] > 0, c
    assert a["exact"], a["approximations"]
    ref = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    out = subprocess.run([ref, "--summary", run.dir], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    s = dict(l.split()[:2] for l in out.stdout.splitlines() if l.startswith("clock_"))
    assert int(s["clock_violations"]) == c["violations"], (s, c)
    assert int(s["clock_repaired"]) == c["repaired"] and int(s["clock_unrepaired"]) == 0, (s, c)
    assert int(s["clock_shifted"]) == c["calls_shifted"], (s, c)
    assert abs(int(s["clock_max_shift_ns"]) * 1e-9 - c["max_shift_s"]) < 1e-9, (s, c)
