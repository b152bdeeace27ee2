#!/usr/bin/env python3
"""Writes random MPI programs whose critical path is known by construction.

A program is a list of rounds drawn from a seed. In every round some ranks compute for a chosen
number of milliseconds, then a communication pattern of one of the enabled features runs. The
program is executed for real by truth_program.c (under libcpath) and its critical path is
predicted by simulate.py from the program alone; a program is kept only when the simulator can
decide its path with a margin that timing noise cannot cross (else the next attempt is drawn).

usage: gen_program.py --seed N [--ranks 4] [--rounds 14] [--features all|f1,f2,...]
                      [--margin MS] [-o FILE]

Features (default all):
  blocking     MPI_Send / MPI_Recv
  nonblocking  MPI_Isend / MPI_Irecv with computation before MPI_Wait / MPI_Waitall
  sync         synchronous sends (MPI_Ssend, MPI_Issend)
  buffered     buffered sends (MPI_Bsend, MPI_Ibsend)
  wildcard     several messages on one channel; MPI_ANY_SOURCE / MPI_ANY_TAG receives
  poll         receives completed by an MPI_Test / MPI_Testall loop
  probe        messages found by an MPI_Iprobe loop, then received
  coll         barrier, allreduce, allgather, alltoall
  rooted       bcast, scatter, reduce, gather, scan, exscan
  icoll        non-blocking forms of the enabled collectives, with computation before the wait
  neighbour    neighbourhood allgather / alltoall on a 1-D Cartesian chain and a random
               distributed graph
  subcomm      collectives and point-to-point on communicators split from MPI_COMM_WORLD

Program format (one item per line; '#' starts a comment):
  ranks N
  comm ID split PARENT COLOR...           colors by parent rank, key = parent rank
  comm ID cart PARENT PERIODIC            1-D Cartesian topology over the parent
  comm ID graph PARENT SRC DST ...        distributed graph: per parent rank its in- and
                                          out-neighbours ("a,b" or "-")
  R compute PHASE MS                      rank R computes MS milliseconds (phase id PHASE)
  R send MODE COMM DST TAG BYTES          MODE std|sync|buf; ranks are communicator-local
  R isend MODE COMM DST TAG BYTES SLOT
  R recv COMM SRC TAG BYTES               SRC/TAG may be "any"
  R irecv COMM SRC TAG BYTES SLOT
  R wait SLOT[,SLOT...]                   MPI_Wait or MPI_Waitall
  R testloop CHUNK_US SLOT[,SLOT...]      MPI_Test/Testall until done, CHUNK_US of compute between
  R probeloop CHUNK_US COMM SRC TAG BYTES MPI_Iprobe until found, then MPI_Recv of it
  R coll KIND COMM ROOT                   barrier allreduce allgather alltoall bcast scatter
                                          reduce gather scan exscan nallgather nalltoall
  R icoll KIND COMM ROOT SLOT             its non-blocking form, completed by wait/testloop
Communicator 0 is MPI_COMM_WORLD. Messages are small (eager in every MPI library).
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simulate  # noqa: E402

ALL_FEATURES = ["blocking", "nonblocking", "sync", "buffered", "wildcard", "poll", "probe", "coll", "rooted",
                "icoll", "neighbour", "subcomm"]
POLL_US = 300  # computation between two polls: far below the phases, far above a poll


class Gen:
    def __init__(self, rng, np_, features, rounds):
        self.rng, self.np, self.f, self.rounds = rng, np_, set(features), rounds
        self.lines = []
        self.phase = 0
        self.comms = {0: [list(range(np_))]}  # id -> groups (lists of world ranks)
        self.topo = []

    # -- helpers
    def op(self, r, *args):
        self.lines.append("%d %s" % (r, " ".join(str(a) for a in args)))

    def compute(self, r, lo=4.0, hi=40.0):
        self.phase += 1
        self.op(r, "compute", self.phase, "%.1f" % self.rng.uniform(lo, hi))

    def send_modes(self, blocking):
        modes = []
        if blocking and "blocking" in self.f or not blocking and "nonblocking" in self.f:
            modes.append("std")
        if "sync" in self.f:
            modes.append("sync")
        if "buffered" in self.f:
            modes.append("buf")
        return modes or ["std"]

    def nbytes(self, mode="std"):
        # Messages stay within Open MPI's shared-memory inline limit (256 bytes): above it a
        # standard send completes only when the receiver polls, and a buffered one is delivered
        # only when the sender enters MPI again (measured: 20-40 ms with the partner computing),
        # although both are below the 4 KiB eager limit.
        return self.rng.choice([8, 16, 64, 128] if mode == "std" else [8, 64, 128, 256])

    def pick_comm(self):
        """(comm id, group) for a collective or message: world, or a split communicator."""
        ids = [0] + ([1, 2] if "subcomm" in self.f else [])
        cid = self.rng.choice(ids)
        return cid, self.rng.choice(self.comms[cid])

    # -- set-up
    def setup(self):
        n = self.np
        self.lines.append("ranks %d" % n)
        if "subcomm" in self.f and n >= 3:
            halves = [0 if r < n // 2 else 1 for r in range(n)]
            parity = [r % 2 for r in range(n)]
            self.lines.append("comm 1 split 0 " + " ".join(map(str, halves)))
            self.lines.append("comm 2 split 0 " + " ".join(map(str, parity)))
            self.comms[1] = [[r for r in range(n) if halves[r] == c] for c in (0, 1)]
            self.comms[2] = [[r for r in range(n) if parity[r] == c] for c in (0, 1)]
        elif "subcomm" in self.f:
            self.f.discard("subcomm")
        if "neighbour" in self.f:
            self.lines.append("comm 3 cart 0 0")
            self.topo.append(3)
            ins = {r: set() for r in range(n)}
            for r in range(n):
                for s in self.rng.sample([x for x in range(n) if x != r], min(n - 1, self.rng.choice([1, 1, 2]))):
                    ins[r].add(s)
            outs = {r: sorted(d for d in range(n) if r in ins[d]) for r in range(n)}
            spec = []
            for r in range(n):
                spec.append(",".join(map(str, sorted(ins[r]))) or "-")
                spec.append(",".join(map(str, outs[r])) or "-")
            self.lines.append("comm 4 graph 0 " + " ".join(spec))
            self.topo.append(4)
            self.comms[3] = self.comms[4] = [list(range(n))]

    # -- rounds
    def patterns(self):
        p = []
        if self.f & {"blocking", "sync", "buffered"}:
            p.append(self.p2p_blocking)
        if "nonblocking" in self.f:
            p += [self.p2p_nonblocking, self.exchange]
        if "wildcard" in self.f:
            p += [self.channel, self.fan_in]
        if "poll" in self.f:
            p.append(self.poll_test)
        if "probe" in self.f:
            p.append(self.poll_probe)
        if self.f & {"coll", "rooted"}:
            p += [self.collective, self.collective]
        if "neighbour" in self.f:
            p.append(self.neighbour)
        return p

    def pair(self):
        """A communicator and two distinct local ranks on it, or None."""
        c, g = self.pick_comm()
        if len(g) < 2:
            return None
        a, b = self.rng.sample(range(len(g)), 2)
        return c, g, a, b

    def tag(self, rnd, k=0):
        return rnd * 10 + k

    def p2p_blocking(self, rnd, busy):
        if not (p := self.pair()):
            return
        c, g, a, b = p
        mode = self.rng.choice(self.send_modes(True))
        for x in (a, b):
            if self.rng.random() < 0.7:
                self.compute(g[x])
        self.op(g[a], "send", mode, c, b, self.tag(rnd), self.nbytes(mode))
        self.op(g[b], "recv", c, a, self.tag(rnd), 1024)

    def p2p_nonblocking(self, rnd, busy):
        if not (p := self.pair()):
            return
        c, g, a, b = p
        mode = self.rng.choice(self.send_modes(False))
        self.op(g[a], "isend", mode, c, b, self.tag(rnd), self.nbytes(mode), 0)
        self.op(g[b], "irecv", c, a, self.tag(rnd), 1024, 0)
        for x in (a, b):
            if self.rng.random() < 0.8:
                self.compute(g[x])
        self.op(g[a], "wait", 0)
        self.op(g[b], "wait", 0)

    def exchange(self, rnd, busy):
        """Pairs exchange one message each way, completed by MPI_Waitall."""
        c, g = self.pick_comm()
        order = list(range(len(g)))
        self.rng.shuffle(order)
        for i in range(0, len(order) - 1, 2):
            a, b = order[i], order[i + 1]
            for x, y in ((a, b), (b, a)):
                mode = self.rng.choice(self.send_modes(False))
                self.op(g[x], "irecv", c, y, self.tag(rnd), 1024, 0)
                self.op(g[x], "isend", mode, c, y, self.tag(rnd), self.nbytes(mode), 1)
            for x in (a, b):
                if self.rng.random() < 0.5:
                    self.compute(g[x])
                self.op(g[x], "wait", "0,1")

    def channel(self, rnd, busy):
        """Several messages on one channel, received in order (maybe with wildcards)."""
        if not (p := self.pair()):
            return
        c, g, a, b = p
        k = self.rng.randint(2, 4)
        if self.rng.random() < 0.6:
            self.compute(g[a])
        src = self.rng.choice([a, "any"])
        tag = self.rng.choice([self.tag(rnd), "any"]) if src != "any" else self.tag(rnd)
        for i in range(k):
            mode = self.rng.choice(self.send_modes(True))
            self.op(g[a], "send", mode, c, b, self.tag(rnd), self.nbytes(mode))
            if i == 0 and self.rng.random() < 0.5:
                self.compute(g[a])
        if self.rng.random() < 0.6:
            self.compute(g[b])
        for i in range(k):
            self.op(g[b], "recv", c, src, tag, 1024)

    def fan_in(self, rnd, busy):
        """Several senders, one receiver taking their messages with MPI_ANY_SOURCE."""
        c, g = self.pick_comm()
        if len(g) < 3:
            return
        dst = self.rng.randrange(len(g))
        senders = [x for x in range(len(g)) if x != dst]
        total = 0
        for s in senders:
            self.compute(g[s], 4.0, 60.0)
            for _ in range(self.rng.randint(1, 2)):
                mode = self.rng.choice(self.send_modes(True))
                self.op(g[s], "send", mode, c, dst, self.tag(rnd), self.nbytes(mode))
                total += 1
        if self.rng.random() < 0.5:
            self.compute(g[dst])
        for _ in range(total):
            self.op(g[dst], "recv", c, "any", self.tag(rnd), 1024)

    def poll_test(self, rnd, busy):
        if not (p := self.pair()):
            return
        c, g, a, b = p
        self.op(g[b], "irecv", c, a, self.tag(rnd), 1024, 0)
        if self.rng.random() < 0.5:
            self.compute(g[b])
        self.compute(g[a], 4.0, 60.0)
        mode = self.rng.choice([m for m in self.send_modes(True) if m != "sync"] or ["std"])
        self.op(g[a], "send", mode, c, b, self.tag(rnd), self.nbytes(mode))
        self.op(g[b], "testloop", POLL_US, 0)

    def poll_probe(self, rnd, busy):
        if not (p := self.pair()):
            return
        c, g, a, b = p
        if self.rng.random() < 0.5:
            self.compute(g[b])
        self.compute(g[a], 4.0, 60.0)
        mode = self.rng.choice([m for m in self.send_modes(True) if m != "sync"] or ["std"])
        self.op(g[a], "send", mode, c, b, self.tag(rnd), self.nbytes(mode))
        src = self.rng.choice([a, "any"]) if "wildcard" in self.f else a
        self.op(g[b], "probeloop", POLL_US, c, src, self.tag(rnd), 1024)

    def collective(self, rnd, busy):
        kinds = []
        if "coll" in self.f:
            kinds += ["barrier", "allreduce", "allgather", "alltoall"]
        if "rooted" in self.f:
            kinds += ["bcast", "scatter", "reduce", "gather", "scan", "exscan"]
        kind = self.rng.choice(kinds)
        c, _ = self.pick_comm()
        self.run_collective(kind, c)

    def neighbour(self, rnd, busy):
        self.run_collective(self.rng.choice(["nallgather", "nalltoall"]), self.rng.choice(self.topo))

    def run_collective(self, kind, c):
        nb = "icoll" in self.f and self.rng.random() < 0.4
        for g in self.comms[c]:
            root = self.rng.randrange(len(g))
            for x in range(len(g)):
                if self.rng.random() < 0.7:
                    self.compute(g[x])
                if nb:
                    self.op(g[x], "icoll", kind, c, root, 0)
                    if self.rng.random() < 0.5:
                        self.compute(g[x])
                    if self.rng.random() < 0.3 and "poll" in self.f:
                        self.op(g[x], "testloop", POLL_US, 0)
                    else:
                        self.op(g[x], "wait", 0)
                else:
                    self.op(g[x], "coll", kind, c, root)

    def program(self):
        self.setup()
        pats = self.patterns()
        if not pats:
            raise SystemExit("gen_program: no feature enabled")
        for rnd in range(1, self.rounds + 1):
            self.rng.choice(pats)(rnd, None)
        for r in range(self.np):
            if self.rng.random() < 0.5:
                self.compute(r)
        return "\n".join(self.lines) + "\n"


def robustness(prog, path, margin):
    """The largest margin (ms, of a few steps) at which the prediction stays the same: how much
    timing noise the program tolerates."""
    best = margin
    for m in (1.5 * margin, 2 * margin, 3 * margin, 4 * margin):
        try:
            if simulate.predict(prog, m) != path:
                break
        except simulate.Undecided:
            break
        best = m
    return best


def generate(seed, np_=4, rounds=14, features=None, margin=4.0, attempts=2000, pick=4, patience=300):
    """Returns (program text, predicted path, attempt): among the first `pick` decided attempts
    (or those found within `patience` attempts), the one that tolerates the most noise."""
    features = list(features or ALL_FEATURES)
    last, found = None, []
    for attempt in range(attempts):
        if found and (len(found) >= pick or attempt >= patience):
            break
        rng = random.Random("%d/%d/%s/%d" % (seed, np_, ",".join(sorted(features)), attempt))
        text = Gen(rng, np_, features, rounds).program()
        prog = simulate.Program(text)
        try:
            path = simulate.predict(prog, margin)
        except simulate.Undecided as e:
            last = str(e)
            continue
        if not path:
            last = "no compute phase on the path"
            continue
        found.append((robustness(prog, path, margin), -attempt, text, path))
    if not found:
        raise SystemExit("gen_program: no decided program in %d attempts (last: %s)" % (attempts, last))
    tolerance, neg_attempt, text, path = max(found)
    head = "# ground-truth program: seed %d, attempt %d, features %s, margin %.1f ms (decided up to %.1f ms)\n" % (
        seed, -neg_attempt, ",".join(features), margin, tolerance)
    return head + text, path, -neg_attempt


def parse_features(s):
    if s in ("all", ""):
        return list(ALL_FEATURES)
    out = [x.strip() for x in s.split(",") if x.strip()]
    bad = [x for x in out if x not in ALL_FEATURES]
    if bad:
        raise SystemExit("gen_program: unknown feature(s) %s (known: %s)" % (",".join(bad), ",".join(ALL_FEATURES)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=14)
    ap.add_argument("--features", default="all")
    ap.add_argument("--margin", type=float, default=4.0)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text, path, attempt = generate(a.seed, a.ranks, a.rounds, parse_features(a.features), a.margin)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    sys.stderr.write("gen_program: attempt %d, %d phases on the predicted path\n" % (attempt, len(path)))


if __name__ == "__main__":
    main()
