"""No trace written (dump=0) and the recorded chunks spilled: the report still counts every call
the program says it made (its expectation files, summed over ranks and functions), a merged run
of polls standing for as many calls as it folded, and the analysis is exact. With chunks freed
as they are decoded, a chunk read after its release (MALLOC_PERTURB_ makes its bytes garbage) or
one skipped would change the count or fail the decoding."""
import os
import re


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    assert rep["trace"]["store"] == "spilled", rep["trace"]
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    calls = 0
    for rank in range(run.np):
        for line in open(os.path.join(expect_dir, "expect.%d.txt" % rank)):
            m = re.match(r"rank \d+ call \S+ count=(\d+)", line)
            if m:
                calls += int(m.group(1))
    got = rep["trace"]["events_total"] + rep["trace"]["polls_merged"]
    assert got == calls, "report counts %d calls (%d records + %d merged polls), the program made %d" % (
        got, rep["trace"]["events_total"], rep["trace"]["polls_merged"], calls)
    assert rep["analysis"]["exact"], rep["analysis"]["approximations"]
    assert "decoding failed" not in run.stderr + run.stdout
    for rank in range(run.np):
        assert not os.path.exists(os.path.join(run.dir, "trace.%d.cpt" % rank)), "dump=0 wrote a trace"
