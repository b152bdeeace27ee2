"""Samples of a plugin dlclose'd before MPI_Finalize keep the plugin's names: plugin_a_kernel
(its own CPU clock, on stderr, is the truth) must be named in libpmu_plugin_a.so with most of
its CPU time, and plugin_b_kernel, loaded afterwards (often where A was), must not take A's
time. Before, A's time went to B, or to "[unknown]" when nothing was loaded after A."""


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    truth = {l.split()[1]: float(l.split()[2]) for l in run.stderr.splitlines() if l.startswith("pmu_dlclose ")}
    assert "plugin_a_kernel" in truth and truth["plugin_a_kernel"] >= 0.35, truth
    rows = {h["function"]: h for h in rep["hotspots"]["all"]}
    a = rows.get("plugin_a_kernel")
    assert a is not None, "plugin_a_kernel missing: %s" % sorted(rows)
    assert a["module"].startswith("libpmu_plugin_a"), a
    # CPU-time samples stay right in total per thread; where they land shifts under load
    # (pmu/README.md), so the bounds are loose, but A's 0.4 s cannot go missing or to B.
    assert 0.5 * truth["plugin_a_kernel"] <= a["cpu_s"] <= 1.3 * truth["plugin_a_kernel"] + 0.02, (a, truth)
    b = rows.get("plugin_b_kernel")
    if "plugin_b_kernel" in truth:
        assert b is None or b["cpu_s"] <= 1.5 * truth["plugin_b_kernel"] + 0.03, (b, truth)
        if b is not None:
            assert b["module"].startswith("libpmu_plugin_b"), b
    else:
        assert b is None, b
    unknown = sum(h["cpu_s"] for h in rep["hotspots"]["all"] if h["module"] == "[unknown]")
    assert unknown < 0.5 * truth["plugin_a_kernel"], ("A's time named [unknown]", unknown, truth)
