"""Field values of individual records, from `cpath-read --events`: every directive line
"event <MPI call> <field>=<value> ..." requires at least one record of that call on that
rank carrying all the given fields with exactly those values."""
import os
import subprocess


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    checked = 0
    for rank in range(run.np):
        path = os.path.join(expect_dir, "directives.%d.txt" % rank)
        wanted = [l.split() for l in open(path) if l.startswith("event ")] if os.path.exists(path) else []
        if not wanted:
            continue
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        events = [l.split() for l in out.stdout.splitlines() if l and not l.startswith("#")]
        for w in wanted:
            call, fields = w[1], set(w[2:])
            same = [e for e in events if len(e) > 3 and e[3] == call]
            assert same, "rank %d: no %s record" % (rank, call)
            assert any(fields <= set(e) for e in same), "rank %d: no %s record with %s; recorded:\n%s" % (
                rank, call, " ".join(sorted(fields)), "\n".join(" ".join(e) for e in same[:5]))
            checked += 1
    assert checked, "no event directives were checked"
