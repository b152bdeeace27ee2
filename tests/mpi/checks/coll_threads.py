"""coll_threads: every rank's trace has one record stream per thread that called MPI (the
main thread and each worker), as the program's "threads N" directive says, and every
worker's stream is non-empty and holds the same calls (merged polls counted as the calls they
stand for)."""
import os
import re
import subprocess


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    for rank in range(run.np):
        d = dict(l.split(None, 1) for l in open(os.path.join(expect_dir, "directives.%d.txt" % rank)) if l.strip())
        want = int(d["threads"])
        head = run.summary(rank)[0]
        m = re.match(r"rank %d events \d+ trace_bytes \d+ threads (\d+) merged_polls \d+$" % rank, head)
        assert m, "bad summary header: %s" % head
        assert int(m.group(1)) == want, "rank %d: trace has %s threads, expected %d" % (rank, m.group(1), want)
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        out = subprocess.run([run.reader, "--events", trace], capture_output=True, text=True)
        assert out.returncode == 0, "cpath-read --events failed: %s" % out.stderr
        per_thread = {}
        for l in out.stdout.splitlines():
            if l and not l.startswith("#"):
                f = l.split()
                m = re.search(r" calls=(\d+)", l)  # a merged run of polls: the calls it stands for
                per_thread[int(f[1])] = per_thread.get(int(f[1]), 0) + (int(m.group(1)) if m else 1)
        assert sorted(per_thread) == list(range(want)), "rank %d: records come from threads %s" % (
            rank, sorted(per_thread))
        # the workers' streams hold the ring traffic: equal in size (same work per thread)
        workers = [per_thread[t] for t in range(1, want)]
        assert len(set(workers)) == 1, "rank %d: worker threads recorded different numbers of calls: %s" % (
            rank, workers)
