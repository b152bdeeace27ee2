"""Sampling can never starve the application (issue 16): whatever period= or freq= says, a
thread is sampled at most freq= times per CPU second (default 1000, at most 10000).

The cost measure is samples per second of sampled CPU time: the report's sample count over the
CPU time those samples stand for (every hotspot row, top=1000). Unlimited, period=1 of software
cpu-clock samples at the kernel's 10 us floor, 100 times the default rate."""
import os

LIMIT = {"pmu_period_1": 1000, "pmu_period_1000": 1000, "pmu_freq_too_high": 10000}


def check(run):
    test = os.path.basename(os.path.dirname(run.dir))
    limit = LIMIT[test]
    rep = run.report
    assert rep is not None, "no report.json"
    pmu = rep["pmu"]
    assert pmu["enabled"] and pmu["samples"] > 50, "too few samples to measure a rate: %s" % pmu
    cpu = sum(h["cpu_s"] for h in rep["hotspots"]["all"])
    assert cpu > 0, "no CPU time in the hotspot table"
    rate = pmu["samples"] / cpu
    assert rate <= 1.25 * limit, "%.0f samples per CPU second, limit %d (%d samples, %.3f s)" % (
        rate, limit, pmu["samples"], cpu)
    # The same limit against the CPU time the kernel gave the processes (each rank prints its
    # own, MPI_Init to MPI_Finalize): with the CPU-time timer each sample's weight is the
    # sampler's own interval, so the rate above holds by construction there.
    own = [float(l.split()[3]) for l in run.stderr.splitlines() if l.startswith("pmu_hotspots_app cpu_s ")]
    assert len(own) == run.np, "expected one CPU-time line per rank on stderr, got %d" % len(own)
    rate = pmu["samples"] / sum(own)
    assert rate <= 1.25 * limit, "%.0f samples per CPU second the kernel measured, limit %d (%d samples, %.3f s)" % (
        rate, limit, pmu["samples"], sum(own))
    if test != "pmu_freq_too_high":
        assert "period" in pmu["note"], "the report must say the period was raised: %r" % pmu["note"]
