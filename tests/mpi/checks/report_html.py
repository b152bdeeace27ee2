"""report.html of a real run, opened in headless Chromium (tests/report/html_check.py): no console
message, every expected plot with the right number of bars, a screenshot."""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "report"))
import html_check  # noqa: E402


def check(run):
    chromium = os.environ.get("CPATH_CHROMIUM") or shutil.which("chromium")
    assert chromium, "chromium not found (scripts/setup.sh installs the Debian package)"
    shot = os.path.join(os.path.dirname(run.dir), "report.png")
    html_check.check(os.path.join(run.dir, "report.html"), run.report, chromium, os.path.dirname(run.dir), shot)
    assert run.report["critical_path"].get("over_time"), "report.json has no path composition over time"
