"""report.html of a run whose analysis was skipped for memory, in headless Chromium: the headline
gives the reason, no section the replay would have filled is drawn (zeros would read as
measurements), and the page renders without a console message."""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "report"))
import html_check  # noqa: E402


def check(run):
    chromium = os.environ.get("CPATH_CHROMIUM") or shutil.which("chromium")
    assert chromium, "chromium not found (scripts/setup.sh installs the Debian package)"
    dom, console = html_check.render(os.path.join(run.dir, "report.html"), chromium, os.path.dirname(run.dir))
    assert not console, "console messages: %s" % console[:5]
    assert 'data-rendered="yes"' in dom, "the page did not finish rendering"
    note = html_check.element(dom, "p", "not-analysed")
    assert note and "Analysis skipped" in note, "no 'not analysed' note in the headline"
    assert html_check.sections(dom) == {"sec-headline", "sec-analysis"}, html_check.sections(dom)
