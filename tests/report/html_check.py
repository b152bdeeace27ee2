#!/usr/bin/env python3
"""Opens a libcpath report.html in headless Chromium and checks what it drew.

Used by the MPI test of a real run (tests/mpi/checks/report_html.py) and, from the command line,
on hand-written report.json fixtures rendered with cpath-report:

  html_check.py --chromium /usr/bin/chromium --cpath-report build/bin/cpath-report \
                --workdir DIR tests/report/fixtures/report_full.json

How errors are seen without the DevTools protocol: Chromium's --enable-logging=stderr --v=0
prints every console message (console.log/error, uncaught exceptions, CSP violations) as an
"INFO:CONSOLE" line; the report logs nothing when all is well, so any such line fails the test.
The page also records errors in #cpath-errors and marks <html data-rendered="yes"> only after
every section was drawn without one; --dump-dom gives the DOM after the scripts ran.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape

CHROMIUM_FLAGS = ["--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars"]


def chromium_cmd(chromium, profile):
    cmd = [chromium] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile]
    if os.geteuid() == 0:
        cmd.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return cmd


def render(html, chromium, workdir, screenshot=None):
    """Returns (dom, console lines). Takes a screenshot too when asked."""
    url = "file://" + os.path.abspath(html)
    profile = tempfile.mkdtemp(prefix="chromium-", dir=workdir)
    try:
        r = subprocess.run(chromium_cmd(chromium, profile) + ["--enable-logging=stderr", "--v=0", "--dump-dom", url],
                           capture_output=True, text=True, timeout=180)
        if r.returncode != 0 or "<html" not in r.stdout:
            raise AssertionError("chromium --dump-dom failed (exit %d): %s" % (r.returncode, r.stderr[-2000:]))
        console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
        if screenshot:
            s = subprocess.run(chromium_cmd(chromium, profile) + ["--window-size=1280,3200", "--screenshot=" + screenshot,
                                                                   url], capture_output=True, text=True, timeout=180)
            if s.returncode != 0 or not os.path.exists(screenshot):
                raise AssertionError("chromium --screenshot failed: %s" % s.stderr[-2000:])
            with open(screenshot, "rb") as f:
                head = f.read(8)
            if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(screenshot) < 20000:
                raise AssertionError("screenshot %s is not a plausible PNG of the page" % screenshot)
        return r.stdout, console
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def element(dom, tag, id_):
    m = re.search(r'<%s [^>]*id="%s"[^>]*>.*?</%s>' % (tag, re.escape(id_), tag), dom, re.S)
    return m.group(0) if m else None


def bars(dom, id_, cls="bar"):
    svg = element(dom, "svg", id_)
    if svg is None:
        return None
    return re.findall(r'<rect class="%s(?: [^"]*)?"[^>]*>' % cls, svg)


def table_rows(dom, id_):
    t = element(dom, "table", id_)
    if t is None:
        return None
    body = re.search(r"<tbody>(.*?)</tbody>", t, re.S)
    return re.findall(r"<tr>", body.group(1)) if body else []


def sections(dom):
    return set(re.findall(r'<section id="([^"]+)"', dom))


def expect_bars(dom, id_, n, what):
    got = bars(dom, id_)
    assert got is not None, "plot #%s (%s) is missing" % (id_, what)
    assert len(got) == n, "plot #%s (%s): %d bars, expected %d" % (id_, what, len(got), n)
    return got


def height(rect):
    return float(re.search(r'height="([0-9.e+-]+)"', rect).group(1))


def check_static(html_text):
    """Self-contained: nothing the browser would fetch."""
    for pat in (r"<link\b", r"<img\b", r"<iframe\b", r"\bsrc\s*=", r"@import", r"url\(", r"https?://(?!www\.w3\.org/2000/svg)",
                r"\bfetch\(", r"XMLHttpRequest"):
        m = re.search(pat, html_text)
        assert m is None, "report.html refers to something outside itself: %r" % html_text[max(0, m.start() - 40):m.end() + 40]


def check(html, report, chromium, workdir, screenshot=None):
    """Everything the page must show for this report.json (a dict)."""
    with open(html) as f:
        check_static(f.read())
    dom, console = render(html, chromium, workdir, screenshot)
    assert not console, "console messages while rendering:\n" + "\n".join(console)
    assert 'data-rendered="yes"' in dom, "the page did not finish drawing: %s" % (element(dom, "pre", "cpath-errors") or "")
    have = sections(dom)
    cp = report.get("critical_path", {})

    assert "sec-headline" in have, "headline section missing"
    per_rank = cp.get("per_rank_s") or []
    if per_rank:
        rects = expect_bars(dom, "plot-per-rank", len(per_rank), "one bar per rank")
        hs = [height(r) for r in rects]
        assert hs.index(max(hs)) == per_rank.index(max(per_rank)), \
            "tallest per-rank bar is rank %d, report.json says rank %d" % (hs.index(max(hs)), per_rank.index(max(per_rank)))
    else:
        assert "sec-per-rank" not in have, "per-rank section drawn without data"
    ot = cp.get("over_time")
    if ot:
        expect_bars(dom, "plot-over-time", 3 * len(ot["compute_s"]), "compute, MPI, start-up per time bin")
    else:
        assert "sec-over-time" not in have
    acts = cp.get("activities") or []
    if acts:
        expect_bars(dom, "plot-activities", len(acts), "one bar per top activity")
        assert len(table_rows(dom, "table-activities")) == len(acts)
    if cp.get("by_mpi_call"):
        assert len(table_rows(dom, "table-by-call")) == len(cp["by_mpi_call"])

    hot = report.get("hotspots") or {}
    keys = {(h["function"], h["module"]) for h in (hot.get("all") or []) + (hot.get("critical_path") or [])}
    if keys:
        expect_bars(dom, "plot-hotspots", 2 * min(15, len(keys)), "path and all-samples bar per function")
        assert len(table_rows(dom, "table-hot-path")) == len(hot.get("critical_path") or [])
    else:
        assert "sec-hotspots" not in have

    ws = report.get("wait_states") or []
    if ws:
        expect_bars(dom, "plot-wait-states", 2 * len(ws), "lost and on-path bar per pattern")
        assert len(table_rows(dom, "table-wait-states")) == len(ws)
    if report.get("root_causes"):
        assert len(table_rows(dom, "table-root-causes")) == len(report["root_causes"])
    if report.get("efficiency"):
        expect_bars(dom, "plot-efficiency", len(report["efficiency"]), "one bar per POP factor")
    if not (ws or report.get("root_causes") or report.get("efficiency")):
        assert "sec-wait-states" not in have, "wait-state section drawn without data"

    ov = report.get("oversubscription") or {}
    shown = element(dom, "p", "oversubscribed")
    assert (shown is not None) == bool(ov.get("oversubscribed") and ov.get("note")), "oversubscription line shown iff oversubscribed"
    if shown:
        assert ov["note"] in unescape(shown), "oversubscription line: %s" % shown

    regs = cp.get("by_region") or []
    phases = cp.get("by_phase") or []
    if regs:
        # A compute and an MPI bar per region; the table adds the time outside any region.
        expect_bars(dom, "plot-regions", 2 * len(regs), "compute and MPI bar per region")
        assert len(table_rows(dom, "table-regions")) == len(regs) + 1, "region rows and the one outside"
        tbl = unescape(element(dom, "table", "table-regions"))
        for r in regs:
            assert "<td>%s</td>" % r["region"] in tbl, "region %r missing" % r["region"]
        assert ('id="regions-unmatched"' in dom) == bool(cp.get("region_unmatched_ends")), "unmatched ends note"
    if phases:
        expect_bars(dom, "plot-phases", 2 * len(phases), "compute and MPI bar per phase")
        assert len(table_rows(dom, "table-phases-path")) == len(phases)
    if not regs and not phases:
        assert "sec-regions" not in have, "region section drawn without regions"
    modes = report.get("wait_states_by_send_mode") or []
    assert len(table_rows(dom, "table-wait-modes") or []) == len(modes), "wait states by send call"

    wi = report.get("what_if") or []
    note = (report.get("what_if_info") or {}).get("note")
    if wi:
        # One bar per change (the first row is the measured run re-timed), the longest for the
        # largest gain; a change that lengthens the run has an empty bar.
        rects = expect_bars(dom, "plot-what-if", len(wi) - 1, "one bar per what-if change")
        widths = [float(re.search(r'width="([0-9.e+-]+)"', r).group(1)) for r in rects]
        gains = [r.get("gain_s") or 0 for r in wi[1:]]
        assert widths.index(max(widths)) == gains.index(max(gains)), "longest what-if bar is not the largest gain"
        for w, g in zip(widths, gains):
            assert (w > 0) == (g > 0), "what-if bar of width %g for a gain of %g s" % (w, g)
        assert len(table_rows(dom, "table-what-if")) == len(wi), "what-if table rows"
        tbl = unescape(element(dom, "table", "table-what-if"))
        unwalked = sum(1 for r in wi if "path_top" not in r)
        assert tbl.count("not walked") == unwalked, "%d rows say 'not walked', %d rows have no new path" % (
            tbl.count("not walked"), unwalked)
        for r in wi:
            for a in r.get("path_top") or []:
                assert ("%s on rank %d" % (a["activity"], a["rank"])) in tbl, "new path activity %r missing" % a["activity"]
    if note:
        said = re.sub(r"<[^>]+>", "", unescape(element(dom, "p", "what-if-note") or ""))
        # The reason alone when nothing was re-timed, a remark after the rows otherwise.
        want = "Note: " + note if wi else note[:1].upper() + note[1:]
        assert said == want, "what-if note %r, expected %r" % (said, want)
    if not wi and note:
        assert element(dom, "table", "table-what-if") is None, "a what-if table without rows"
    if not wi and not note:
        assert "sec-what-if" not in have, "what-if section drawn without data"

    comm = report.get("communication")
    if comm:
        top = comm.get("p2p_top") or []
        cells = bars(dom, "plot-comm-matrix", "cell")
        if top:
            assert cells is not None and len(cells) == len(top), "heatmap: %s cells for %d pairs" % (
                None if cells is None else len(cells), len(top))
        else:
            assert cells is None, "heatmap drawn without point-to-point pairs"
        edges = ("lower_bytes", "bin_lower_bytes", "bin_bytes", "edges", "labels", "bins")
        series = {k: v for k, v in (comm.get("histogram") or {}).items() if k not in edges and isinstance(v, list) and v
                  and all(isinstance(x, (int, float)) for x in v)}
        used = {i for v in series.values() for i, x in enumerate(v) if x > 0}
        if used:
            expect_bars(dom, "plot-msg-histogram", len(used) * len(series), "one bar per used size bin and series")
        if comm.get("collectives"):
            assert len(table_rows(dom, "table-collectives")) == len(comm["collectives"])
    else:
        assert "sec-communication" not in have, "communication section drawn without data"
    pl = report.get("placement") or {}
    if isinstance(pl.get("current_internode_bytes"), (int, float)) and isinstance(pl.get("suggested_internode_bytes"),
                                                                                  (int, float)):
        expect_bars(dom, "plot-placement", 2, "current and suggested inter-node bytes")
    if report.get("startup"):
        assert table_rows(dom, "table-startup"), "start-up table missing"
    if not report.get("startup") and not report.get("placement"):
        assert "sec-startup" not in have

    tl = report.get("timeline")
    if tl and tl.get("written"):
        assert "sec-timeline" in have and "timeline.json" in element(dom, "section", "sec-timeline")
        assert ('id="timeline-capped"' in dom) == bool(tl.get("capped")), "capped note shown iff the timeline was capped"
    return dom


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--cpath-report", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--screenshot")
    ap.add_argument("fixture")
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    shutil.copy(a.fixture, os.path.join(a.workdir, "report.json"))
    r = subprocess.run([a.cpath_report, a.workdir], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: cpath-report: " + r.stderr)
    with open(a.fixture) as f:
        report = json.load(f)
    try:
        check(os.path.join(a.workdir, "report.html"), report, a.chromium, a.workdir, a.screenshot)
    except AssertionError as e:
        sys.exit("FAIL: %s: %s" % (os.path.basename(a.fixture), e))
    print("PASS: %s rendered with every expected plot and no console message" % os.path.basename(a.fixture))


if __name__ == "__main__":
    main()
