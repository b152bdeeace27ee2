"""All ranks on one host read one clock: no alignment between them (every rank's map is the
identity), no clock-condition violation on thousands of matched receives, the report says so."""
import re
import subprocess


def check(run):
    m = re.search(r"clock_pingpong: (\d+) receives", run.stdout)
    assert m and int(m.group(1)) >= 4 * run.np * 250, "too few matched receives: %s" % (m and m.group(1))
    a = run.report["analysis"]
    c = a["clock"]
    assert c["hosts"] == 1 and c["alignment"] == "none" and not c["simulated_hosts"], c
    assert c["violations"] == 0 and c["repaired"] == 0 and c["unrepaired"] == 0 and c["calls_shifted"] == 0, c
    assert c["max_shift_s"] == 0 and a["clock_error_s"] == 0, c
    assert a["exact"], a["approximations"]
    assert "Clocks: 1 host, one clock, no alignment; 0 clock-condition violations" in run.stdout
    for r in range(run.np):
        out = subprocess.run([run.reader, "%s/trace.%d.cpt" % (run.dir, r)], capture_output=True, text=True).stdout
        al = re.search(r"# align offset_ns=(\S+) drift=(\S+)", out)
        assert al and float(al.group(1)) == 0 and float(al.group(2)) == 0, "rank %d aligned: %s" % (r, al and al.group(0))
        assert "# clock_aligned=0" in out and "# clock_leader=0" in out and "# clock_hosts=1" in out, "rank %d meta" % r
