"""Hotspot rows are named canonically: no Fortran/alias spellings of libcpath's own wrappers, no
GCC clone suffixes, no symbol versions, no per-address rows for modules without symbols, one
row per (function, module); inside-MPI time appears per MPI call in the combined path table;
the text report does not print the same table twice."""
import os
import re

ALIAS = re.compile(r"^(p?mpi_\w+?_*(f08\w*)?|P?MPI_[A-Z0-9_]+)$")
CLONE = re.compile(r"\.(constprop|isra|part|cold|lto_priv)(\.\d+)?|\[clone ")


def check(run):
    hot = run.report.get("hotspots") or {}
    for name, rows in hot.items():
        seen = set()
        for h in rows:
            f, m = h["function"], h["module"]
            if m.startswith("libcpath"):
                assert not ALIAS.match(f), "%s: alias spelling %r of libcpath's wrapper" % (name, f)
            assert not CLONE.search(f), "%s: clone suffix in %r" % (name, f)
            assert "@" not in f, "%s: symbol version in %r" % (name, f)
            assert not re.search(r"\+0x[0-9a-f]+$", f), "%s: one row per address %r" % (name, f)
            assert (f, m) not in seen, "%s: two rows for %s (%s)" % (name, f, m)
            seen.add((f, m))
            if m.startswith("libcpath"):
                assert re.match(r"^MPI_[A-Z][a-z_0-9]*$", f) or f == "[libcpath]", "%s: libcpath row %r" % (name, f)
            if m == "(MPI)":
                assert name == "critical_path" and re.match(r"^inside MPI_[A-Z][a-z_0-9]*$", f), "%s: %r" % (name, f)
            if name in ("critical_path_compute",):
                assert m != "(MPI)" and not m.startswith("libcpath"), "compute table holds MPI time: %r (%s)" % (f, m)
    text = open(os.path.join(run.dir, "report.txt")).read()
    if run.report.get("pmu", {}).get("enabled"):
        assert ("Hotspots on the critical path: compute" in text) == bool(hot.get("critical_path_mpi")), \
            "the compute table is printed iff there are samples inside MPI on the path"
