"""Critical-path hotspots vs plain hotspots (issue 4's known answer)."""

PROGRESS = ("sched_yield", "poll", "progress", "opal_", "mca_", "libmpi", "libopen-pal", "vader", "ucx", "ucp", "uct")


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    pmu = rep["pmu"]
    assert pmu["enabled"], "sampling was not enabled"
    assert pmu["event_source"] in ("hardware", "software"), pmu
    assert pmu["samples"] > 100, "only %d samples" % pmu["samples"]
    assert pmu["lost"] >= 0
    hot = rep["hotspots"]
    path = hot["critical_path"]
    assert path, "no hotspots on the critical path"
    assert path[0]["function"] == "slow_kernel", "top of the critical-path table is %s" % path[0]
    comp = hot["critical_path_compute"]
    assert comp and comp[0]["function"] == "slow_kernel", comp[:3]
    top_all = hot["all"][0]["function"]
    assert top_all == "fast_kernel" or any(p in top_all for p in PROGRESS), "top of the plain table is %s" % top_all
    fast = [h for h in hot["all"] if h["function"] == "fast_kernel"]
    slow = [h for h in hot["all"] if h["function"] == "slow_kernel"]
    assert fast and slow and fast[0]["cpu_s"] > slow[0]["cpu_s"], "fast_kernel should cost more CPU overall"
    for table in ("all", "critical_path"):
        for h in hot[table]:
            assert h["module"], h
            if pmu["event_source"] == "software":
                assert h["instructions"] is None and h["cpi"] is None, h
    if pmu["event_source"] == "software":
        assert "n/a" in run.stdout, "the text table should show n/a for Instructions/CPI"
        assert pmu["note"], "the software fallback must say so"
