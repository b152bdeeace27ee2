"""cp_known pipeline (rank r receives from r-1, computes 10 ms, sends to r+1) with
whatif=rank1:0,rank1+rank2:0: each stage removed shortens the run by that stage's compute on
the path (read from the path files), one stage and two stages."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank
from whatif_common import row


def check(run):
    comp = time_by_rank([s for s in load_path(run) if s["kind"] == "compute"])
    one = row(run, "user", "rank1")["gain_s"]
    two = row(run, "user", "rank1+rank2")["gain_s"]
    assert comp.get(1, 0) > 0.009 and comp.get(2, 0) > 0.009, "stages not on the path: %s" % comp
    assert abs(one - comp[1]) <= 5e-4, "one stage removed gains %.6f s, its compute on the path is %.6f s" % (one, comp[1])
    assert abs(two - comp[1] - comp[2]) <= 1e-3, \
        "two stages removed gain %.6f s, their compute on the path is %.6f s" % (two, comp[1] + comp[2])
