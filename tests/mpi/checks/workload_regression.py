"""The NPB-style proxies through the same regression checks as the real NAS benchmarks
(scripts/check_report.py): verification, path length = elapsed, an application routine on top
of the critical-path compute hotspot table."""
import importlib.util
import os

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "check_report", os.path.join(_here, "..", "..", "..", "scripts", "check_report.py"))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)


def check(run):
    assert run.report is not None, "no report.json"
    problems = _mod.check(run.report, run.stdout, app_module=run.report["app"])
    assert not problems, "; ".join(problems)
