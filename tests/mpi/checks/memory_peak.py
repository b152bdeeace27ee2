"""analysis.memory_per_rank_max_bytes is the real peak: within 20 % of the resident-memory
growth bench/halo_bench measures itself across MPI_Finalize (VmHWM after minus VmRSS before,
largest rank), which the old heap-only figure understated about threefold."""
import re


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    growth = [int(m.group(1)) for m in re.finditer(r"finalize rank \d+ cpu_ns \d+ rss_growth_bytes (\d+)", run.stdout)]
    assert len(growth) == run.np, "expected one finalize line per rank: %s" % run.stdout[-500:]
    measured = max(growth)
    reported = rep["analysis"]["memory_per_rank_max_bytes"]
    assert measured > 8 << 20, "too little growth to compare (%d bytes): more iterations" % measured
    assert abs(reported - measured) <= 0.2 * measured, "reported %d bytes, measured %d" % (reported, measured)
