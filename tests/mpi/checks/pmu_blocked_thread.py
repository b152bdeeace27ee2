"""A worker thread on rank 0 computes (its own CPU clock, printed on stderr, is the truth) with
every signal blocked, or with signals open ("open" in the command). The CPU-time timer cannot
sample a thread that blocks SIGPROF: the report must name that thread, the CPU time no sample
stands for and the cause, in report.json and in the text. The open worker must be sampled.
(Another thread may also be listed, without the blocked cause: the timer, checked at the
kernel's tick, can miss a thread that yields; such rows are allowed here but never blamed on
SIGPROF.)"""


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    pmu = rep["pmu"]
    truth = [float(l.split()[2]) for l in run.stderr.splitlines() if l.startswith("pmu_blocked_thread worker_cpu_s ")]
    assert len(truth) == 1, "expected the worker's CPU time on stderr"
    cpu = truth[0]
    assert cpu >= 0.3, "the worker ran %.3f s of CPU, the program asks 0.36" % cpu
    blocked = "open" not in run.cmd
    u = pmu["unsampled"]
    assert len(u["worst"]) == min(u["threads"], 8), u
    hot = {h["function"]: h["cpu_s"] for h in rep["hotspots"]["all"]}
    if pmu["events"] != "cpu-time timer" or not blocked:
        # perf events sample whatever the signal mask; the open worker gets its signals.
        if pmu["events"] != "cpu-time timer":
            assert u["threads"] == 0 and u["cpu_s"] == 0, u
        assert u["sigprof_blocked"] == 0 and all(t["sigprof_blocked"] == 0 for t in u["worst"]), u
        assert "SIGPROF blocked" not in run.stdout
        assert hot.get("worker_kernel", 0) >= 0.5 * cpu, (hot, cpu)
        return
    assert "worker_kernel" not in hot, "a blocked thread cannot have samples: %s" % hot
    assert u["sigprof_blocked"] == 1 and u["ranks"] >= 1, u
    w = [t for t in u["worst"] if t["sigprof_blocked"] == 1]
    assert len(w) == 1 and w[0]["rank"] == 0 and w[0]["sampled_s"] == 0, u
    # All of its CPU time from its creation (after MPI_Init, so timed from its first
    # instruction) to its exit: what it measured, plus its few instructions before and after.
    assert cpu <= w[0]["cpu_s"] <= cpu + 0.02, (w, cpu)
    assert u["cpu_s"] >= w[0]["cpu_s"] - 1e-9, u
    line = [l for l in run.stdout.splitlines() if l.startswith("Not sampled: %d thread" % u["threads"])]
    assert len(line) == 1 and "SIGPROF blocked" in line[0], run.stdout
    assert ("rank 0 thread %d: " % w[0]["tid"]) in run.stdout, run.stdout
