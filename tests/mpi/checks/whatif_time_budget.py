"""whatif_time= smaller than the re-timing needs: the application runs to completion with its own
output, the report has no what-if table but says on one line that the re-timing outgrew its
budget and names the option, and the rest of the analysis (critical path, exactness) is there."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from whatif_common import halo_what_if_info  # noqa: E402


def check(run):
    rep, _, note = halo_what_if_info(run)
    assert "longer than its budget" in note and "whatif_time=" in note, "what-if note: %r" % note
    assert not rep.get("what_if"), "a what-if table although the re-timing gave up: %s" % rep.get("what_if")
    assert "What if: no re-timing: it took longer than its budget" in run.stdout, "the text report does not say so"
    assert rep["analysis"]["exact"], rep["analysis"]["approximations"]
    assert rep["critical_path"]["length_s"] > 0, rep["critical_path"]
