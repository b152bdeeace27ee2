"""The critical path by region and by phase in report.json must equal an independent
recomputation: this file replays each thread's region markers (from `cpath-read --events`)
as a stack and splits the distributed path's segments (option path=1) where the innermost
region changes. Shares no code with analysis/regions.cpp."""
import os
import subprocess


def markers_and_threads(run, rank):
    trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
    out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
    assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
    thread_of, marks = {}, {}
    for line in out.stdout.splitlines():
        if line.startswith("# region "):
            head, name = line.split(" name=", 1)
            f = head.split()
            marks.setdefault(int(f[2]), []).append((int(f[4].split("=")[1]), f[3], name))
        elif line and not line.startswith("#"):
            f = line.split()
            thread_of[int(f[2])] = int(f[1])
    return thread_of, marks


def pieces(marks):
    """[(time, stack tuple, phase)] from each marker on; before the first: ((), "")."""
    stack, phase, out = [], "", []
    for at, kind, name in marks:
        if kind == "begin":
            stack.append(name)
        elif kind == "phase":
            phase = name
        elif name == "(innermost)":
            if stack:
                stack.pop()
        elif name in stack:
            del stack[len(stack) - 1 - stack[::-1].index(name):]
        out.append((at, tuple(stack), phase))
    return out


def split(ps, b, e):
    state, x = ((), ""), b
    for at, stack, phase in ps:
        if at <= b:
            state = (stack, phase)
            continue
        if at >= e:
            break
        yield state, x, at
        state, x = (stack, phase), at
    yield state, x, e


def recompute(run):
    by_region, by_phase = {}, {}
    for rank in range(run.np):
        thread_of, marks = markers_and_threads(run, rank)
        ps = {t: pieces(m) for t, m in marks.items()}
        with open(os.path.join(run.dir, "path.%d.txt" % rank)) as f:
            for line in f:
                _, kind, b, e, ev = line.split()
                b, e = int(b), int(e)
                thread = None if kind == "startup" else thread_of[int(ev)]
                for (stack, phase), pb, pe in split(ps.get(thread, []), b, e):
                    ns = pe - pb
                    inner = stack[-1] if stack else ""
                    r = by_region.setdefault(inner, [0, 0, 0, 0])
                    r[0] += ns
                    r[2 if kind == "mpi" else 1] += ns
                    for name in set(stack):
                        by_region.setdefault(name, [0, 0, 0, 0])[3] += ns
                    p = by_phase.setdefault(phase, [0, 0, 0])
                    p[0] += ns
                    p[2 if kind == "mpi" else 1] += ns
    return by_region, by_phase


def close(a, b):
    return abs(a - b) <= 2e-6 + 1e-6 * abs(b)


def check(run):
    cp = run.report["critical_path"]
    by_region, by_phase = recompute(run)
    got = {r["region"]: r for r in cp["by_region"]}
    assert close(cp["outside_regions_s"], by_region.get("", [0])[0] * 1e-9), \
        "outside regions: report %g, recomputed %g" % (cp["outside_regions_s"], by_region.get("", [0])[0] * 1e-9)
    for name, v in by_region.items():
        if name == "":
            continue
        assert name in got, "region %s holds %g s of the path but is not in the report" % (name, v[0] * 1e-9)
        row = got[name]
        for key, i in (("time_s", 0), ("compute_s", 1), ("mpi_s", 2), ("inclusive_s", 3)):
            assert close(row[key], v[i] * 1e-9), "region %s %s: report %g, recomputed %g" % (name, key, row[key], v[i] * 1e-9)
    for name, row in got.items():
        if name not in by_region:
            assert row["time_s"] == 0 and row["inclusive_s"] == 0, "region %s: path time in the report only" % name
    phases = {p["phase"]: p for p in cp["by_phase"]}
    for name, v in by_phase.items():
        assert name in phases, "phase %r missing from the report" % name
        for key, i in (("time_s", 0), ("compute_s", 1), ("mpi_s", 2)):
            assert close(phases[name][key], v[i] * 1e-9), "phase %s %s: report %g, recomputed %g" % (
                name, key, phases[name][key], v[i] * 1e-9)
