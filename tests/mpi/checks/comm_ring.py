"""comm_ring.c: the point-to-point matrix (bytes and messages per (sender, receiver) in world
ranks, over MPI_COMM_WORLD, a dup and a split), the size histograms per rank and kind, and the
collective rows must be exactly what the program did; report.json's communication section
must agree with the files."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from comm_files import p2p, histogram, collectives, size_bin, diff  # noqa: E402


def expected(np_):
    pairs, hist, coll = {}, {}, {}

    def send(src, dst, nbytes, count=1):
        b, m = pairs.get((src, dst), (0, 0))
        pairs[(src, dst)] = (b + nbytes * count, m + count)
        k = (src, "p2p", size_bin(nbytes))
        hist[k] = hist.get(k, 0) + count

    def call(rank, comm, op, size, count, sent, recv, nbytes):
        c = coll.get((comm, op, rank), (size, 0, 0, 0))
        coll[(comm, op, rank)] = (size, c[1] + count, c[2] + sent * count, c[3] + recv * count)
        k = (rank, "collective", size_bin(nbytes))
        hist[k] = hist.get(k, 0) + count

    for r in range(np_):
        right, left = (r + 1) % np_, (r - 1) % np_
        send(r, right, 100, 3)
        send(r, left, 5000, 2)
        send(r, right, 12)
        send(r, right, 0)
        half = [x for x in range(np_) if x % 2 == r % 2]
        if len(half) > 1:
            partner = half[(half.index(r) + 1) % len(half)]
            send(r, partner, 70000)
            send(r, partner, 256, 2)
        call(r, "world", "MPI_Comm_dup", np_, 1, 0, 0, 0)
        call(r, "world", "MPI_Comm_split", np_, 1, 0, 0, 0)
        call(r, "world.dup0", "MPI_Allreduce", np_, 5, 64, 64, 64)
        root = r == half[0]
        call(r, "HALF%d" % half[0], "MPI_Bcast", len(half), 1, 16 if root else 0, 0 if root else 16, 16)
        call(r, "world", "MPI_Barrier", np_, 2, 0, 0, 0)
    return pairs, hist, coll


def check(run):
    want_pairs, want_hist, want_coll = expected(run.np)
    got_pairs = p2p(run)
    diff(got_pairs, want_pairs, "point-to-point matrix")
    diff(histogram(run), want_hist, "size histograms")
    got_coll = collectives(run)
    # A split's name is the library's (world#<call>:<colour>): map each to HALF<its lowest world
    # rank>, which is how expected() names the halves.
    members = {}
    for (comm, op, rank) in got_coll:
        if comm not in ("world", "world.dup0", "self") and op == "MPI_Bcast":
            members.setdefault(comm, []).append(rank)
    renamed = {}
    for (comm, op, rank), v in got_coll.items():
        if comm in members:
            comm = "HALF%d" % min(members[comm])
        renamed[(comm, op, rank)] = v
    diff(renamed, want_coll, "collective rows")

    c = run.report["communication"]
    assert c["pairs"] == len(want_pairs), c["pairs"]
    assert c["p2p_bytes"] == sum(b for b, _ in want_pairs.values())
    assert c["p2p_messages"] == sum(m for _, m in want_pairs.values())
    top = [(t["src"], t["dst"], t["bytes"], t["messages"]) for t in c["p2p_top"]]
    ranked = sorted(((s, d, b, m) for (s, d), (b, m) in want_pairs.items()), key=lambda t: (-t[2], -t[3], t[0], t[1]))
    assert top == ranked[:len(top)] and len(top) == min(10, len(ranked)), "p2p_top %s, expected %s" % (top, ranked[:10])
    h = c["histogram"]
    assert h["bins"] == 66 and len(h["p2p"]) == 66 and len(h["collective"]) == 66
    assert h["lower_bytes"][:4] == [0, 1, 2, 4] and h["lower_bytes"][64] == 2 ** 63
    # every bound a 64-bit unsigned reader takes (the unused last bin was 2^64)
    assert all(0 <= b < 2 ** 64 for b in h["lower_bytes"]), h["lower_bytes"][-3:]
    for kind in ("p2p", "collective"):
        job = [0] * 66
        for (rank, k, b), n in want_hist.items():
            if k == kind:
                job[b] += n
        assert h[kind] == job, "job-wide %s histogram %s, expected %s" % (kind, h[kind], job)
    ops = {(x["comm"], x["op"]): x for x in c["collectives"]}
    ar = ops.get(("world.dup0", "MPI_Allreduce"))
    assert ar and ar["calls"] == 5 * run.np and ar["bytes_sent"] == 320 * run.np and ar["ranks"] == run.np, ar
    assert "--- Communication: point-to-point %d pairs" % len(want_pairs) in open(os.path.join(run.dir, "report.txt")).read()
