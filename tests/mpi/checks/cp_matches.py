"""The analysis' matched point-to-point pairs (option matches=1, DIR/matches.<rank>.txt) must be
exactly what the program received: the test program sends payloads naming their send (sender's
world rank, sender's send ordinal) and logs every receive and successful probe with its own
ordinal into received.<rank>.txt next to the expect files ("recv ORD SRC SEND_ORD", "peek ORD
SRC SEND_ORD", or "recv ORD none" for a receive that got nothing, e.g. cancelled)."""
import os


def load_dump(run):
    """Per rank: send op -> send ordinal, and {(kind, ordinal): (src world rank, src op)}."""
    sends, got = {}, {}
    for r in range(run.np):
        path = os.path.join(run.dir, "matches.%d.txt" % r)
        assert os.path.exists(path), "no %s (option matches=1)" % path
        s, g = {}, {}
        for line in open(path):
            p = line.split()
            if p[0] == "send":
                s[int(p[2])] = int(p[1])
            else:
                g[(p[0], int(p[1]))] = (int(p[2]), int(p[3]))
        sends[r], got[r] = s, g
    return sends, got


def load_program(run, name="received"):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    out = {}
    for r in range(run.np):
        path = os.path.join(expect_dir, "%s.%d.txt" % (name, r))
        assert os.path.exists(path), "the program wrote no %s" % path
        rec = {}
        for line in open(path):
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            key = (p[0], int(p[1]))
            assert key not in rec, "rank %d logged %s twice" % (r, key)
            rec[key] = None if p[2] == "none" else (int(p[2]), int(p[3]))
        out[r] = rec
    return out


def check(run):
    sends, got = load_dump(run)
    prog = load_program(run)
    checked = 0
    for r in range(run.np):
        for key, truth in sorted(prog[r].items()):
            assert key in got[r], "rank %d: the analysis has no %s %d (the program posted it)" % (r, key[0], key[1])
            src, src_op = got[r][key]
            if truth is None:
                assert src < 0, "rank %d: %s %d received nothing, the analysis matched it with rank %d op %d" % (
                    r, key[0], key[1], src, src_op)
                continue
            assert src >= 0, "rank %d: %s %d got send %d of rank %d, the analysis left it unmatched" % (
                r, key[0], key[1], truth[1], truth[0])
            assert src_op in sends.get(src, {}), "rank %d: %s %d matched with op %d of rank %d, not a send there" % (
                r, key[0], key[1], src_op, src)
            mine = (src, sends[src][src_op])
            assert mine == truth, "rank %d: %s %d got send %d of rank %d, the analysis says send %d of rank %d" % (
                r, key[0], key[1], truth[1], truth[0], mine[1], mine[0])
            checked += 1
        extra = [k for k in got[r] if k not in prog[r]]
        assert not extra, "rank %d: the analysis has operations the program did not post: %s" % (r, sorted(extra)[:5])
    assert checked > 0, "no received message to check"
    print("cp_matches: %d received messages agree with the analysis' matching" % checked)
