"""Known answer of region_whatif.c: what-if scenarios on activities named by user region scale
exactly those regions' parts of the compute intervals. The slow rank comes last to every
MPI_Allreduce by 25 ms or more in each scenario (65 ms of work against 40 at the factor 0.25), so the model's gain is the slow rank's part
scaled away, summed over the intervals between two Allreduces: the check takes those parts from
the program's own measurement (a line on stdout). The scenarios are given as quoted targets
(options whatif='...':F and whatif="...":F), as the report names the activities; the default
activity rows, where they name the same activity, must give the same run times."""
import os
import re
import sys
sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import rows

SITE = "MPI_Allreduce at region_whatif.c:37"


def check(run):
    m = re.search(r"region_whatif rank (\d+) solve_ms ([\d.]+) extra_ms ([\d.]+)", run.stdout)
    assert m, "the program did not print its measurement"
    solve, extra = float(m.group(2)) * 1e-3, float(m.group(3)) * 1e-3
    assert extra >= 0.39 and solve >= 0.15, "the construction did not hold: %s" % m.group(0)
    assert "unknown option" not in run.stderr and "option whatif" not in run.stderr, run.stderr
    act = {r: "compute in region %s between %s and %s" % (r, SITE, SITE) for r in ("extra", "solve")}
    user = [r for r in rows(run) if r["kind"] == "user"]
    assert len(user) == 3, "expected the 3 quoted scenarios: %s" % [(r["target"], r["factor"]) for r in rows(run)]

    def one(target, factor):
        got = [r for r in user if r["target"] == target and abs(r["factor"] - factor) < 1e-9]
        assert len(got) == 1, "no user scenario %s:%g in %s" % (target, factor, [(r["target"], r["factor"]) for r in user])
        return got[0]

    for region, factor, part in (("extra", 0.5, extra), ("solve", 0.5, solve), ("extra", 0.25, extra)):
        r = one(act[region], factor)
        want = part * (1 - factor)
        assert abs(r["gain_s"] - want) <= 0.03 * want + 0.003, \
            "%s: gains %.4f s, the region's part scaled by %g gains %.4f s (measured %s ms)" % (
                r["scenario"], r["gain_s"], factor, want, part * 1e3)
        assert r["option"].startswith("whatif=\"" + act[region] + "\":"), r["option"]
    # The same activity as a default scenario: the same answer (the activity named twice).
    for r in rows(run):
        if r["kind"] == "activity" and r["target"] in act.values():
            u = one(r["target"], 0.5)
            assert r["run_time_s"] == u["run_time_s"], "default %s %.6f s, user %.6f s" % (
                r["target"], r["run_time_s"], u["run_time_s"])
    assert any(r["kind"] == "activity" and r["target"] == act["extra"] for r in rows(run)), \
        "region extra's activity is not a default scenario: %s" % [r["target"] for r in rows(run)]
    txt = open(os.path.join(run.dir, "report.txt")).read()
    assert "LIBCPATH_OPTIONS='whatif=\"" in txt, "the text report does not show the quoted option"
