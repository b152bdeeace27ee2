"""Critical-path hotspots vs plain hotspots (issue 4's known answer)."""

PROGRESS = ("sched_yield", "poll", "progress", "opal_", "mca_", "libmpi", "libopen-pal", "vader", "ucx", "ucp", "uct")
# Modules where a waiting rank spends its samples: the MPI library and its transports. MPICH
# (ch4:ucx) busy-polls in static functions of stripped libraries, whose rows are "[unknown]"
# named by module, so the function name alone cannot tell progress from application code.
MPI_MODULES = ("libmpi", "libmpich", "libopen-pal", "libopen-rte", "libucp", "libuct", "libucs", "libucm",
               "libpmix", "libfabric", "libcpath", "mca_")


def in_mpi(row):
    return any(p in row["function"] for p in PROGRESS) or any(row["module"].startswith(m) for m in MPI_MODULES)


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
    # The plain table holds every sample: ranks waiting in MPI may top it (how much depends on
    # the MPI's progress: Open MPI yields, MPICH busy-polls), but the first row that is not the
    # MPI library is the kernel that costs most CPU.
    top_all = hot["all"][0]
    assert top_all["function"] == "fast_kernel" or in_mpi(top_all), "top of the plain table is %s" % top_all
    first_app = next((h for h in hot["all"] if not in_mpi(h)), None)
    assert first_app and first_app["function"] == "fast_kernel", \
        "first row outside the MPI library in the plain table is %s" % first_app
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
