#!/usr/bin/env python3
"""Regression checks on one libcpath run (shared by CI's proxy tests and npb-regression.sh).

  scripts/check_report.py REPORT_DIR [--stdout FILE] [--app-module NAME] [--max-share 0.05]

Checks: the application verified its result ("Verification = SUCCESSFUL" / NPB's
"Verification    =               SUCCESSFUL") when --stdout is given; report.json exists; the
critical path is as long as the elapsed time within 1%; its parts add up; the top entry of the
critical-path compute hotspot table is an application routine (in --app-module, not an MPI
library or progress function; libm's kernels and libc's memset/memcpy count as the
application's; time inside MPI is listed per call, "inside MPI_Send", in the
combined table, and may top it on a communication-bound path); post-processing stayed under
--max-share of elapsed. Exits 1 with one line per failed check.
"""
import argparse
import json
import os
import re
import sys

MPI_MODULE = re.compile(r"(libmpi|libopen-pal|libopen-rte|mca_|libucp|libuct|libucs|libfabric|libpsm|libmlx|"
                        r"libevent|libpmix|libc\.so|libpthread|\[vdso\]|\[unknown\])")
MATH_MODULE = re.compile(r"^lib(m|mvec)\.so")
# libc's memset/memcpy/memmove sampled outside MPI calls run for the application (Fortran array
# zeroing and copies compile to them): its compute, like libm's kernels below.
LIBC_MEMORY = re.compile(r"^_*(mem(set|cpy|move|cmp)|bzero|wmemset)")
MPI_FUNCTION = re.compile(r"(progress|sched_yield|poll|MPI_|PMPI_|ompi_|opal_|mca_|ucp_|uct_)")


def expected_path_samples(report):
    """Samples the path's compute (start-up excluded) should get at the rate the sampler took."""
    pmu = report.get("pmu", {})
    cp = report["critical_path"]
    return (cp["compute_s"] - cp.get("startup_s", 0)) * (pmu.get("effective_hz") or pmu.get("freq_hz") or 0)


def taken_path_samples(report):
    """Samples the path's compute table holds. A CPU-time sampler only counts while the rank
    runs, and with more ranks than cores a rank on the path can spend most of its compute
    waiting for a core that polling ranks hold (MPICH over UCX, 4 ranks on 2 cores: 0.12 s of
    path compute, 2 samples), so the wall-clock expectation overstates what the table can show."""
    pmu = report.get("pmu", {})
    rows = report["hotspots"].get("critical_path_compute") or []
    return sum(r.get("cpu_s") or 0 for r in rows) * (pmu.get("effective_hz") or pmu.get("freq_hz") or 0)


def too_few_samples(report):
    # A path with a few milliseconds of compute (NPB class S: 9 ms, at the kernel tick's 333 Hz
    # 3 samples expected) gets none, one or two: the table then falls back to time inside MPI,
    # or shows whatever those samples hit (the program's own output in libc's write), and which
    # routine tops it is chance, not a result. Undecidable below 5 samples, expected from the
    # path's compute time or, when the table has rows, held by it. Only in frequency mode with a
    # plausible rate (rate_problem): a sampler that lost its rate must not make the check
    # undecidable. An empty table where samples were expected stays a failure, unless ranks
    # outnumber the cores: then the path's compute can get no CPU-time sample at all (MPICH
    # over UCX, lu_wavefront at 4 ranks on 2 cores: 0 to 2 samples in 0.13 s of path compute).
    pmu = report.get("pmu", {})
    if not (pmu.get("enabled") and pmu.get("freq_hz") and not rate_problem(report)):
        return False
    if expected_path_samples(report) < 5:
        return True
    if not report["hotspots"].get("critical_path_compute"):
        return bool((report.get("oversubscription") or {}).get("oversubscribed"))
    return taken_path_samples(report) < 5


def rate_problem(report):
    """A sampler taking far fewer samples than asked: below half of the asked rate or of 100 Hz
    (the slowest kernel tick a CPU-time timer fires at), whichever is lower, over enough samples
    to tell."""
    pmu = report.get("pmu", {})
    asked, taken = pmu.get("freq_hz") or 0, pmu.get("effective_hz") or 0
    if not pmu.get("enabled") or not asked or (pmu.get("samples") or 0) < 20:
        return None
    if taken < 0.5 * min(asked, 100):
        return "the sampler took %.0f Hz of the %.0f Hz asked" % (taken, asked)
    return None


def check(report, stdout=None, app_module=None, max_share=None):
    problems = []
    if stdout is not None and not re.search(r"Verification\s*=\s*SUCCESSFUL", stdout):
        problems.append("the application did not print 'Verification = SUCCESSFUL'")
    cp = report["critical_path"]
    elapsed = report["elapsed_s"]
    if elapsed <= 0:
        problems.append("elapsed_s is %g" % elapsed)
    elif abs(cp["length_s"] - elapsed) > 0.01 * elapsed:
        problems.append("critical path %.6f s differs from elapsed %.6f s by more than 1%%" % (cp["length_s"], elapsed))
    if abs(cp["compute_s"] + cp["mpi_s"] - cp["length_s"]) > 1e-6 * max(1.0, elapsed):
        problems.append("compute + MPI != critical path length")
    if len(cp["per_rank_s"]) != report["ranks"]:
        problems.append("per_rank_s has %d entries for %d ranks" % (len(cp["per_rank_s"]), report["ranks"]))
    hot = report["hotspots"].get("critical_path_compute") or report["hotspots"]["critical_path"]
    if rate_problem(report):
        problems.append(rate_problem(report))
    if too_few_samples(report):
        print("check_report: hotspot not checked: %.1f samples expected on the path's %.1f ms of compute, "
              "%.1f taken" % (expected_path_samples(report), 1e3 * (cp["compute_s"] - cp.get("startup_s", 0)),
                              taken_path_samples(report)))
    elif not hot:
        problems.append("no hotspots on the critical path (pmu.samples = %s)" % report["pmu"]["samples"])
    else:
        top = hot[0]
        app_libc = top["module"].startswith("libc.so") and LIBC_MEMORY.search(top["function"])
        if not app_libc and (MPI_MODULE.search(top["module"]) or MPI_FUNCTION.search(top["function"])):
            problems.append("top critical-path hotspot is %s in %s, an MPI/system function" % (top["function"], top["module"]))
        elif app_module and top["module"] != app_module and not MATH_MODULE.search(top["module"]) and not app_libc:
            # The kernels' own sin/cos/exp run in libm: compute the application asked for.
            problems.append("top critical-path hotspot %s is in %s, not in %s" % (top["function"], top["module"], app_module))
    if max_share is not None and elapsed > 0 and report["analysis"]["postprocess_s"] > max_share * elapsed:
        problems.append("post-processing took %.1f%% of elapsed (limit %.1f%%)" %
                        (100 * report["analysis"]["postprocess_s"] / elapsed, 100 * max_share))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report_dir")
    ap.add_argument("--stdout")
    ap.add_argument("--app-module")
    ap.add_argument("--max-share", type=float)
    a = ap.parse_args()
    path = os.path.join(a.report_dir, "report.json")
    if not os.path.exists(path):
        print("check_report: no report.json in %s" % a.report_dir)
        return 1
    report = json.load(open(path))
    stdout = open(a.stdout).read() if a.stdout else None
    problems = check(report, stdout, a.app_module, a.max_share)
    for p in problems:
        print("check_report: " + p)
    if not problems:
        hot = report["hotspots"].get("critical_path_compute") or report["hotspots"]["critical_path"]
        top = "not checked (too few samples)" if too_few_samples(report) or not hot else hot[0]["function"]
        print("check_report: OK (%s: critical path %.3f s of %.3f s elapsed, top hotspot on it %s)" %
              (report["app"], report["critical_path"]["length_s"], report["elapsed_s"], top))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
