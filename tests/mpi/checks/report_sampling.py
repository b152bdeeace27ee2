"""The report states how it sampled (source, rate asked, rate taken for the timer) and says in
one line whether the job is oversubscribed. The expectation is computed here, independently:
all ranks run on this host, so the job is oversubscribed iff it has more ranks than the CPUs
this process may use."""
import os


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    pmu = rep["pmu"]
    assert pmu["freq_hz"] == 1000 and pmu["period"] == 0, pmu
    assert "1000 Hz of CPU time per thread" in run.stdout, "the text report must state the rate"
    if pmu["events"] == "cpu-time timer":
        assert 0 < pmu["effective_hz"] <= 1000.5, pmu
        assert "Hz taken" in run.stdout
        # The share of a CPU the threads ran on between samples, and the warning below 0.8.
        assert 0 < pmu["cpu_share_min"] <= pmu["cpu_share"] + 1e-9 and pmu["cpu_share"] <= 1 + 1e-9, pmu
        assert pmu["functions_approximate"] == (pmu["cpu_share"] < 0.8), pmu
        assert ("function times are approximate" in run.stdout) == pmu["functions_approximate"], pmu
    else:
        assert pmu["effective_hz"] == 0, pmu
        assert pmu["cpu_share"] == -1 and not pmu["functions_approximate"], pmu
    cpus = len(os.sched_getaffinity(0))
    over = rep["oversubscription"]
    assert over["oversubscribed"] == (run.np > cpus), (over, run.np, cpus)
    lines = [l for l in run.stdout.splitlines() if l.startswith("Oversubscribed:")]
    if run.np > cpus:
        assert len(lines) == 1 and ("%d ranks" % run.np) in lines[0] and ("%d CPUs" % cpus) in lines[0], lines
    else:
        assert not lines, lines
