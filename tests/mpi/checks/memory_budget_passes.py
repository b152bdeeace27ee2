"""analysis_mem= small enough that the what-if scenarios do not fit in one pass: they run a few
at a time (the report says how), the analysis stays within the limit (peak resident growth
under analysis_mem=), and the results are those of the sequential reference (cp_whatif_diff.py
runs after this check)."""


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    mb = rep["analysis"]["memory_budget"]
    assert mb["analysed"], mb
    rows = rep["what_if"]
    per = mb["whatif_scenarios_per_pass"]
    assert per is not None and 1 <= per < len(rows), "expected fewer than %d scenarios per pass: %s" % (len(rows), mb)
    passes = -(-len(rows) // per)
    note = rep["what_if_info"]["note"]
    assert "re-timed in %d passes of up to %d scenarios" % (passes, per) in note, note
    assert rep["analysis"]["exact"], rep["analysis"]["approximations"]
    used = mb["used_bytes"]
    assert 0 < used <= mb["limit_bytes"], "peak growth after the plan %d bytes, limit %d" % (used, mb["limit_bytes"])
