"""comm_startup.c: rank 2 sleeps 0.3 s before MPI_Init. It must be the slowest start-up (longest
time before MPI_Init), with >= 0.3 s, named with its host, and start-up must be on the critical
path. (Which rank entered MPI_Init last also depends on when the launcher started each process.)"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from comm_files import rows  # noqa: E402


def check(run):
    s = run.report["startup"]
    assert s["slowest_rank"] == 2, "slowest start-up on rank %s, expected 2: %s" % (s["slowest_rank"], s)
    per_rank = {int(r["rank"]): r for r in rows(run, "startup.csv")}
    assert sorted(per_rank) == list(range(run.np))
    pre2 = float(per_rank[2]["preinit_s"])
    assert pre2 >= 0.3, "rank 2 spent %.3f s before MPI_Init, expected >= 0.3" % pre2
    assert s["preinit_s"]["max"] >= 0.3 and s["preinit_s"]["min"] <= s["preinit_s"]["median"] <= s["preinit_s"]["max"]
    assert s["slowest_host"] == per_rank[2]["host"] and s["slowest_host"], s["slowest_host"]
    for r in per_rank.values():
        assert float(r["init_s"]) >= 0 and float(r["finalize_s"]) >= 0
    assert 0 <= s["last_init_rank"] < run.np
    # The others waited inside MPI_Init for the last rank: that wait is on the path.
    assert s["on_critical_path_s"] >= 0.15, "start-up on the path: %.3f s" % s["on_critical_path_s"]
    assert 0 < s["share_of_elapsed"] <= 1 and s["startup_s"] >= 0.3, s
    text = open(os.path.join(run.dir, "report.txt")).read()
    assert "Slowest start-up: rank 2 on " in text and "Start-up is on the critical path" in text
    # The sampler starts in MPI_Init: the hotspot tables say the path's start-up is not in them.
    cp = run.report["critical_path"]
    if run.report["pmu"]["enabled"] and cp["startup_s"] >= 0.01 * cp["length_s"]:
        assert "Not sampled: the start-up before MPI_Init, %.6f s" % cp["startup_s"] in text, cp

    # The sequential reference computes the same per-rank figures from the dumped traces.
    ref_bin = os.path.join(os.path.dirname(run.reader), "cpath-ref")
    r = subprocess.run([ref_bin, "--startup", run.dir], capture_output=True, text=True)
    assert r.returncode == 0, "cpath-ref --startup failed: " + r.stderr
    mine = ["%s,%s,%s,%s" % (x["rank"], x["preinit_s"], x["init_s"], x["finalize_s"]) for x in rows(run, "startup.csv")]
    ref = r.stdout.splitlines()
    assert ref[0] == "rank,preinit_s,init_s,finalize_s" and ref[1:] == mine, "startup.csv %s, reference %s" % (mine, ref[1:])
