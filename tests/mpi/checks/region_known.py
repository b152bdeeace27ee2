"""Known answer of region_known.c: the slow rank's compute inside region "compute" is the
path's compute; Allreduce waits are in "exchange"; "solve" includes both; the other thread's
region "background" holds no path time; phases split the path; the stray end is counted;
activities are named by region; the text report has the section."""
import re


def check(run):
    rep = run.report
    cp = rep["critical_path"]
    rows = {r["region"]: r for r in cp["by_region"]}
    for name in ("compute", "exchange", "solve", "background", "left-open"):
        assert name in rows, "region %s missing: %s" % (name, sorted(rows))
    comp, exch, solve, bg = rows["compute"], rows["exchange"], rows["solve"], rows["background"]
    # 4 x 60 ms when every iteration's path runs through the slow rank; a loaded machine can
    # send one elsewhere, so half of that, and more than any other region.
    assert comp["time_s"] >= 0.12, "region compute holds only %g s of the path (expected ~4 x 60 ms)" % comp["time_s"]
    assert comp["compute_s"] == max(r["compute_s"] for r in cp["by_region"]), "compute is not the region with most compute"
    assert comp["compute_s"] >= 0.95 * comp["time_s"], "region compute is not compute: %s" % comp
    assert exch["compute_s"] < 0.02, "region exchange holds %g s of compute" % exch["compute_s"]
    assert solve["inclusive_s"] >= comp["time_s"] + exch["time_s"] - 1e-6, "solve does not include its children: %s" % solve
    assert solve["time_s"] < 0.02, "solve itself (exclusive) should hold almost nothing: %s" % solve
    assert bg["time_s"] == 0 and bg["inclusive_s"] == 0, "another thread's region holds path time: %s" % bg
    assert bg["mean_open_s"] >= 0.1, "background was open the whole run: %s" % bg
    assert comp["mean_open_s"] < comp["inclusive_s"], "the slow rank's compute should exceed the mean: %s" % comp
    assert cp["region_unmatched_ends"] == run.np, "unmatched ends: %d" % cp["region_unmatched_ends"]
    total = sum(r["time_s"] for r in cp["by_region"]) + cp["outside_regions_s"]
    assert abs(total - cp["length_s"]) <= 1e-6 * max(1.0, cp["length_s"]), "regions + outside != path length"
    phases = {p["phase"]: p for p in cp["by_phase"]}
    assert set(phases) >= {"setup", "solve", "output"}, "phases: %s" % sorted(phases)
    assert phases["solve"]["time_s"] >= comp["time_s"] - 1e-6, "phase solve: %s" % phases["solve"]
    slow = 2 if run.np > 2 else run.np - 1
    # (start-up costs before the first marker vary with the MPI and the machine's load)
    top = [a for a in cp["activities"] if a["kind"] == "compute" and " in region " in a["description"]][0]
    assert re.match(r"compute in region compute between MPI_\w+ at region_known.c:\d+ and MPI_Allreduce at "
                    r"region_known.c:\d+ on rank \d+$", top["description"]), top["description"]
    assert any(a["rank"] == slow and a["description"].startswith("compute in region compute ")
               for a in cp["activities"]), "no activity of region compute on the slow rank %d" % slow
    # (the test runs with top=50: every activity is listed)
    mpi = [a for a in cp["activities"] if a["kind"] == "mpi" and "MPI_Allreduce" in a["description"]]
    assert mpi, "no MPI_Allreduce activity: %s" % [a["description"] for a in cp["activities"]]
    assert all(a["description"].split(" on rank")[0].endswith(" in region exchange") for a in mpi), mpi
    txt = open(run.dir + "/report.txt").read()
    assert "--- Critical path by region" in txt and "--- Critical path by phase" in txt, "text report lacks the region section"
    assert "compute in region compute between" in txt
