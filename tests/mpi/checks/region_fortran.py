"""Fortran regions: rank 1's compute inside 'solve' is on the path, the Allreduce is in 'halo'
(named without the variable's trailing blanks), phases from cpath_phase."""


def check(run):
    cp = run.report["critical_path"]
    rows = {r["region"]: r for r in cp["by_region"]}
    assert set(rows) >= {"solve", "halo"}, "regions: %s" % sorted(rows)
    assert rows["solve"]["compute_s"] >= 0.12, "solve holds %g s of path compute (3 x 50 ms expected)" % rows["solve"]["compute_s"]
    assert rows["halo"]["compute_s"] < 0.01 and rows["solve"]["inclusive_s"] >= rows["halo"]["time_s"], rows
    phases = {p["phase"] for p in cp["by_phase"]}
    assert {"setup", "iterate"} <= phases, "phases: %s" % sorted(phases)
    assert any(a["description"].startswith("compute in region solve ") for a in cp["activities"]), cp["activities"]
