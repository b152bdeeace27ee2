"""analysis_mem= with the default options (sampler, timeline files, what-if): whatever the plan
decides, the analysis stays within the limit. The resident growth halo_bench measures itself
across MPI_Finalize may exceed it by what the MPI library allocates for the tool's
communicators before the plan (docs/options.md: 0.5-3 MiB). With the plan's old fixed part
(2 MiB, sized with the sampler and the timeline off) a 5k-event run was analysed within 7 MiB
and grew by 9 MiB; now its fixed part alone (16 MiB) makes the plan refuse that run, which is
all memory_budget_defaults_small shows: memory_budget_defaults has a run the plan analyses."""
import re


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    growth = [int(m.group(1)) for m in re.finditer(r"finalize rank \d+ cpu_ns \d+ rss_growth_bytes (\d+)", run.stdout)]
    assert len(growth) == run.np, "the application's own output is incomplete: %s" % run.stdout[-400:]
    mb = rep["analysis"]["memory_budget"]
    assert mb["source"].startswith("analysis_mem="), mb
    limit = mb["limit_bytes"]
    assert mb["used_bytes"] <= limit, "the analysis grew by %d bytes after the plan, limit %d (%s)" % (
        mb["used_bytes"], limit, "analysed" if mb["analysed"] else "skipped")
    assert max(growth) <= limit + (3 << 20), "MPI_Finalize grew the process by %d bytes, limit %d" % (max(growth), limit)
