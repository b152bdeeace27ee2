"""Bad options: the program sends each rank's stderr to expect/stderr.<rank>.txt. libcpath
must print exactly one "libcpath:" line per problem, from rank 0 only; each line names the
option (and, for a bad value, the default it falls back to). The problems per test are
listed here, keyed by the ctest name (the work directory's name)."""
import os

# test name -> list of (substrings one warning line must contain)
PROBLEMS = {
    "coll_bad_options": [("mem=lots", "1G"), ("foo",)],
    "coll_bad_options_many": [
        ("mem=99999999999999999999T", "1G"),  # overflows 64 bits
        ("chunk=1K", "4K"),                   # below the 4K minimum: clamped
        ("on_full=maybe", "spill"),
        ("freq=0", "using 1"),                # clamped to 1 sample per second
        ("bogus",),                           # a key without a value, unknown
        ("clock=sundial", "auto"),
    ],
}


def check(run):
    test = os.path.basename(os.path.dirname(run.dir))
    assert test in PROBLEMS, "coll_bad_options.py does not know test %s" % test
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    per_rank = {}
    for rank in range(run.np):
        path = os.path.join(expect_dir, "stderr.%d.txt" % rank)
        assert os.path.exists(path), "rank %d did not capture its stderr" % rank
        per_rank[rank] = [l.rstrip("\n") for l in open(path) if l.startswith("libcpath:")]
    for rank in range(1, run.np):
        assert not per_rank[rank], "rank %d printed libcpath lines (only rank 0 may): %s" % (rank, per_rank[rank])
    lines = per_rank[0]
    want = PROBLEMS[test]
    assert len(lines) == len(want), "rank 0 printed %d libcpath lines, expected %d (one per problem):\n%s" % (
        len(lines), len(want), "\n".join(lines))
    unused = list(lines)
    for subs in want:
        hit = [l for l in unused if all(s in l for s in subs)]
        assert hit, "no libcpath line mentions %s:\n%s" % (" and ".join(subs), "\n".join(lines))
        unused.remove(hit[0])
