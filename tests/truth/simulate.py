#!/usr/bin/env python3
"""Predicts, from a ground-truth program alone, which compute phases form its critical path.

This is the independent truth of the critical-path tests: it shares no code and no data
structure with libcpath's replay (replay/) or with the sequential reference (tools/cpath-ref).
It executes the program description (format: gen_program.py) in a discrete-event simulation
with an explicit model of MPI, in which MPI itself takes no time:

  * standard and buffered sends of small messages (the generator keeps them within 256 bytes,
    Open MPI's shared-memory inline limit) are eager: the message arrives when the send is
    posted and the sender never waits;
  * a synchronous send completes when its receive is matched: not before the receive is posted
    (and, at the latest, when the receiver enters the call that completes the receive);
  * receives, probes and wildcards match as MPI does: per (communicator, source, tag) in send
    order, a receive takes the earliest-arrived matching message, a posted receive queue is
    searched in posting order;
  * a polling loop (MPI_Test/Testall or MPI_Iprobe, with short computation between polls) is a
    wait that started at its first poll and ends at the first poll after the message arrived;
  * collectives: barrier, allreduce, allgather, alltoall and communicator creation wait for
    the last member; bcast and scatter wait for the root; reduce and gather: the root waits for
    every member, the others (at least) for nobody; scan and exscan wait for the lower ranks;
    neighbourhood collectives wait for the in-neighbours of the topology; non-blocking forms
    wait in the call that completes them.

Where MPI implementations may legitimately do more waiting than this (a non-root of a reduction
tree waits for its subtree; a synchronous send or a multi-round non-blocking collective needs
its partner to enter MPI before it can progress, and the receive of a non-blocking synchronous
send its sender's next MPI call (MPICH 4.0 delivered a 256-byte MPI_Issend only when the sender
entered MPI_Wait; MPI_Pcontrol, the phase marker, is taken to progress nothing); a polling loop notices a message only at its
next poll), the program is simulated twice: "lo" with the least waiting and "hi" with the most.
Every event of the real run then lies between the two. The critical path is walked backwards
from the latest MPI_Finalize in both: at the end of every call the latest of its own begin and
the begins of the calls it waited for wins. A program is *decided* when both walks give the
same compute phases and no choice on them (nor any wildcard match) is closer than the margin,
so timing noise of the real run cannot change the answer; only decided programs are used.

usage: simulate.py PROGRAM.txt [--margin MS] [--min-phase MS]
prints the predicted path "rank phase length_ms" per line, or why the program is undecided.
"""
import heapq
import sys


class Undecided(Exception):
    """The program's critical path or matching cannot be predicted with the margin."""


# ---------------------------------------------------------------------------------------------
# The program description


class Group:
    """One communicator as its members see it: world ranks in communicator-rank order."""

    def __init__(self, key, members, sources=None):
        self.key = key
        self.members = members
        self.sources = sources  # per local rank: list of in-neighbour local ranks (topologies)

    def local(self, world):
        return self.members.index(world)


class Program:
    def __init__(self, text):
        self.np = None
        self.groups = {}  # (comm id, world rank) -> Group
        self.ops = {}     # world rank -> list of op token lists
        self.phase_ms = {}
        # When each rank leaves the barrier that starts the timed part (ms after the first to
        # leave): 0 in the program's own model; a check may set what a run measured.
        self.start_ms = {}
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "ranks":
                self.np = int(line[1])
                world = Group((0,), list(range(self.np)))
                for r in range(self.np):
                    self.groups[(0, r)] = world
                    self.ops[r] = []
            elif line[0] == "comm":
                self._comm(line)
            else:
                r = int(line[0])
                self.ops[r].append(line[1:])
                if line[1] == "compute":
                    self.phase_ms[int(line[2])] = float(line[3])

    def _comm(self, t):
        cid, kind, parent = int(t[1]), t[2], int(t[3])
        parents = {}
        for r in range(self.np):
            g = self.groups.get((parent, r))
            if g is not None:
                parents.setdefault(g.key, g)
        for pg in parents.values():
            n = len(pg.members)
            if kind == "split":
                colors = [int(x) for x in t[4:4 + n]]
                for c in sorted(set(colors)):
                    members = [pg.members[i] for i in range(n) if colors[i] == c]
                    g = Group((cid, pg.key, c), members)
                    for w in members:
                        self.groups[(cid, w)] = g
            elif kind == "cart":
                periodic = int(t[4])
                sources = []
                for i in range(n):
                    s = []
                    for j in (i - 1, i + 1):  # MPI_Cart_shift order: -1 then +1
                        if 0 <= j < n:
                            s.append(j)
                        elif periodic:
                            s.append(j % n)
                    sources.append(s)
                g = Group((cid, pg.key), list(pg.members), sources)
                for w in pg.members:
                    self.groups[(cid, w)] = g
            elif kind == "graph":
                sources = []
                for i in range(n):
                    s = t[4 + 2 * i]
                    sources.append([] if s == "-" else [int(x) for x in s.split(",")])
                g = Group((cid, pg.key), list(pg.members), sources)
                for w in pg.members:
                    self.groups[(cid, w)] = g
            else:
                raise ValueError("unknown communicator kind " + kind)


def rank_arg(s):
    return -1 if s == "any" else int(s)


# ---------------------------------------------------------------------------------------------
# The discrete-event simulation


class Call:
    """One MPI call (or polling loop, taken as one wait) of one rank in the simulation."""
    __slots__ = ("rank", "idx", "name", "begin", "end", "deps", "doc", "phase")

    def __init__(self, rank, idx, name, begin, phase):
        self.rank, self.idx, self.name, self.begin = rank, idx, name, begin
        self.end = None
        self.deps = []     # calls whose begin this call's end waited for
        self.doc = []      # those of docs/pag-rules.md (what an analysis can know)
        self.phase = phase  # compute phase just before this call (id) or None


class Msg:
    __slots__ = ("src", "dst", "src_local", "group", "tag", "send_call", "time", "sync", "recv", "seq", "mode",
                 "progress_call", "progress_waiters")


class Recv:
    __slots__ = ("rank", "group", "src", "tag", "post_call", "time", "msg", "done_call", "order", "waiters", "probe")


class SendDone:
    """Stands for the call that completes message m's non-blocking send until it is known."""
    __slots__ = ("m", "rank")

    def __init__(self, m):
        self.m, self.rank = m, m.src


class Req:
    """A request: its completion time and the calls it waited for, once known."""
    __slots__ = ("time", "deps", "doc", "kind", "obj", "waiters")

    def __init__(self, kind, obj):
        self.kind, self.obj = kind, obj
        self.time, self.deps, self.doc, self.waiters = None, [], [], []


COLL_ALL = {"barrier", "allreduce", "allgather", "alltoall"}
COLL_FROM_ROOT = {"bcast", "scatter"}
COLL_TO_ROOT = {"reduce", "gather"}
COLL_NEIGHBOUR = {"nallgather", "nalltoall"}


class Sim:
    def __init__(self, prog, scenario):
        self.p = prog
        self.hi = scenario == "hi"
        self.np = prog.np
        self.calls = {r: [] for r in range(self.np)}
        self.heap = []
        self.seq = 0
        self.pc = {r: 0 for r in range(self.np)}
        self.now = {r: prog.start_ms.get(r, 0.0) for r in range(self.np)}
        self.pending_phase = {r: None for r in range(self.np)}
        self.blocked = {}  # rank -> resume function
        self.slots = {r: {} for r in range(self.np)}
        self.unexpected = {r: [] for r in range(self.np)}  # arrived, unmatched messages in arrival order
        self.posted = {r: [] for r in range(self.np)}      # posted, unmatched receives in posting order
        self.recv_order = {r: 0 for r in range(self.np)}
        self.msgs, self.recvs = [], []
        self.chan_seq = {}
        self.coll_count = {}   # (group key, world rank) -> instances so far
        self.instances = {}    # (group key, k) -> {local rank: (call, req or None)}
        self.inst_waiters = {}
        self.completing = {}   # id(req) -> completing call (once a rank enters it)
        self.compl_waiters = {}
        self.finalize = {}
        self.unprogressed = {r: [] for r in range(self.np)}  # non-blocking sends not yet progressed
        self.send_done = {}  # id(msg) -> the call that completes its non-blocking send
        for r in range(self.np):
            t0 = self.now[r]
            self.calls[r].append(self._mk(r, "start", t0))
            self.calls[r][0].end = t0
            self._schedule(t0, r)

    # -- bookkeeping
    def _mk(self, r, name, t):
        c = Call(r, len(self.calls[r]), name, t, self.pending_phase[r])
        self.pending_phase[r] = None
        return c

    def _call(self, r, name):
        c = self._mk(r, name, self.now[r])
        self.calls[r].append(c)
        if name != "marker" and self.unprogressed[r]:
            todo, self.unprogressed[r] = self.unprogressed[r], []
            for m in todo:
                m.progress_call = c
                for f in m.progress_waiters:
                    f(c)
                m.progress_waiters = []
        return c


    def _schedule(self, t, r):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, r))

    def _finish(self, c, t, deps, doc=None):
        c.end = max(c.begin, t)
        c.deps = list(deps)
        c.doc = list(deps if doc is None else doc)
        self.now[c.rank] = c.end
        self._schedule(c.end, c.rank)

    def run(self):
        while self.heap:
            t, _, r = heapq.heappop(self.heap)
            self.now[r] = max(self.now[r], t)
            self._step(r)
        stuck = [r for r in range(self.np) if r not in self.finalize]
        if stuck:
            raise Undecided("the program deadlocks in the model (ranks %s)" % stuck)
        # The rules' candidate "the call that completed the send" is known only once the sender
        # made it, which may be after the receive ended.
        for calls in self.calls.values():
            for c in calls:
                if any(isinstance(d, SendDone) for d in c.doc):
                    c.doc = [self.send_done[id(d.m)] if isinstance(d, SendDone) else d for d in c.doc
                             if not isinstance(d, SendDone) or id(d.m) in self.send_done]

    # -- point to point
    def _deliver(self, m):
        """Message m arrives at its destination at m.time."""
        for rv in self.posted[m.dst]:
            if self._matches(rv, m):
                self.posted[m.dst].remove(rv)
                self._pair(rv, m, m.time)
                return
        self.unexpected[m.dst].append(m)
        # A blocked probe loop on the destination may now see it.
        w = self.blocked.get(m.dst)
        if w is not None and w[0] == "probe":
            w[1]()

    def _matches(self, rv, m):
        return (rv.group is m.group and (rv.src < 0 or rv.src == m.src_local) and (rv.tag < 0 or rv.tag == m.tag))

    def _pair(self, rv, m, t):
        rv.msg, m.recv = m, rv
        rv.time = max(rv.time, m.time)
        for f in rv.waiters:
            f()
        if m.sync is not None:
            m.sync()

    def _post_recv(self, r, g, src, tag, call, probe=False):
        rv = Recv()
        rv.rank, rv.group, rv.src, rv.tag, rv.post_call, rv.time = r, g, src, tag, call, self.now[r]
        rv.msg, rv.done_call, rv.waiters, rv.probe = None, None, [], probe
        rv.order = self.recv_order[r]
        self.recv_order[r] += 1
        self.recvs.append(rv)
        for m in self.unexpected[r]:
            if self._matches(rv, m):
                self.unexpected[r].remove(m)
                self._pair(rv, m, self.now[r])
                return rv
        self.posted[r].append(rv)
        return rv

    def _send(self, r, g, dst_local, tag, mode, call, blocking):
        m = Msg()
        m.src, m.dst, m.src_local, m.group, m.tag = r, g.members[dst_local], g.local(r), g, tag
        m.send_call, m.time, m.recv = call, self.now[r], None
        m.mode = mode
        # The sender's first call inside MPI from the send on: the send itself when it blocks.
        m.progress_call, m.progress_waiters = (call if blocking else None), []
        if not blocking:
            self.unprogressed[r].append(m)
        key = (g.key, r, m.dst, tag)
        m.seq = self.chan_seq.get(key, 0)
        self.chan_seq[key] = m.seq + 1
        m.sync = None
        self.msgs.append(m)
        req = Req("send", m)
        if mode != "sync":
            req.time, req.deps, req.doc = self.now[r], [], []
        else:
            def on_match():
                rv = m.recv
                if not self.hi:
                    self._complete(req, rv.time, [rv.post_call])
                else:
                    # The receiver must enter the call that completes the receive.
                    def with_done(dc):
                        self._complete(req, max(rv.time, dc.begin), [dc], [rv.post_call])
                    self._on_completing(rv, with_done)
            m.sync = on_match
        self._deliver(m)
        return req

    def _complete(self, req, t, deps, doc=None):
        req.time, req.deps = t, deps
        req.doc = deps if doc is None else doc
        for f in req.waiters:
            f()
        req.waiters = []

    def _on_completing(self, rv, f):
        if rv.done_call is not None:
            f(rv.done_call)
        else:
            self.compl_waiters.setdefault(id(rv), []).append(f)

    def _set_completing(self, obj, call):
        obj.done_call = call
        for f in self.compl_waiters.pop(id(obj), []):
            f(call)

    # -- collectives
    def _coll_arrive(self, r, g, kind, root, call, req):
        n = self.coll_count.get((g.key, r), 0)
        self.coll_count[(g.key, r)] = n + 1
        key = (g.key, n)
        inst = self.instances.setdefault(key, {"kind": kind, "root": root, "members": {}, "done": {}})
        if inst["kind"] != kind or inst["root"] != root:
            raise ValueError("collective mismatch on %s" % (g.key,))
        inst["members"][g.local(r)] = call
        for f in self.inst_waiters.pop(key, []):
            f()
        return key

    def _coll_needs(self, g, inst, me, completing, hi):
        """Local ranks whose arrival (or completing call) member `me` waits for."""
        kind, root, n = inst["kind"], inst["root"], len(g.members)
        every = list(range(n))
        if kind in COLL_NEIGHBOUR:
            return list(g.sources[me])  # one round: in-neighbours' messages are sent at their post
        if self.hi and completing:
            return every  # a multi-round schedule may need any member inside MPI
        if kind in COLL_ALL:
            return every
        if kind in COLL_FROM_ROOT:
            # A tree hands the data down through other members, which may arrive late.
            return [] if me == root else (every if self.hi else [root])
        if kind in COLL_TO_ROOT:
            return every if (me == root or self.hi) else []
        if kind == "scan":
            return every if self.hi else list(range(me + 1))
        if kind == "exscan":
            return every if self.hi else list(range(me))
        raise ValueError(kind)

    def _coll_wait(self, r, g, key, completing, cb):
        """Calls cb(time, deps) once everything member r waits for in instance `key` is known."""
        inst = self.instances[key]
        me = g.local(r)
        need = self._coll_needs(g, inst, me, completing, self.hi)
        doc_need = self._coll_needs(g, inst, me, completing, False)

        def attempt():
            if any(j not in inst["members"] for j in need):
                self.inst_waiters.setdefault(key, []).append(attempt)
                return
            if completing and self.hi and inst["kind"] not in COLL_NEIGHBOUR:
                # Multi-round non-blocking collectives progress only while members are in MPI.
                done = inst["done"]
                if any(j not in done for j in need):
                    inst.setdefault("done_waiters", []).append(attempt)
                    return
                deps = [done[j] for j in need]
            else:
                deps = [inst["members"][j] for j in need]
            deps = [d for d in deps if d.rank != r]
            doc = [inst["members"][j] for j in doc_need if inst["members"][j].rank != r]
            cb(max([d.begin for d in deps] or [0.0]), deps, doc)
        attempt()

    def _coll_set_done(self, g, key, r, call):
        inst = self.instances[key]
        inst["done"][g.local(r)] = call
        for f in inst.pop("done_waiters", []):
            f()

    # -- one rank's next op
    def _step(self, r):
        if r in self.blocked:
            return
        ops = self.p.ops[r]
        if self.pc[r] >= len(ops):
            if r not in self.finalize:
                c = self._call(r, "finalize")
                c.end = c.begin
                self.finalize[r] = c
            return
        op = ops[self.pc[r]]
        self.pc[r] += 1
        name = op[0]
        t = self.now[r]
        if name == "compute":
            c = self._call(r, "marker")
            c.end = t
            self.pending_phase[r] = int(op[1])
            self.now[r] = t + self.p.phase_ms[int(op[1])]
            self._schedule(self.now[r], r)
        elif name == "send":
            g = self.p.groups[(int(op[2]), r)]
            c = self._call(r, "send")
            req = self._send(r, g, int(op[3]), int(op[4]), op[1], c, True)
            self._wait_reqs(r, c, [req])
        elif name == "isend":
            g = self.p.groups[(int(op[2]), r)]
            c = self._call(r, "isend")
            self.slots[r][int(op[6])] = self._send(r, g, int(op[3]), int(op[4]), op[1], c, False)
            c.end = t
            self._schedule(t, r)
        elif name == "recv":
            g = self.p.groups[(int(op[1]), r)]
            c = self._call(r, "recv")
            rv = self._post_recv(r, g, rank_arg(op[2]), rank_arg(op[3]), c)
            self._set_completing(rv, c)
            self._wait_reqs(r, c, [self._recv_req(rv)])
        elif name == "irecv":
            g = self.p.groups[(int(op[1]), r)]
            c = self._call(r, "irecv")
            rv = self._post_recv(r, g, rank_arg(op[2]), rank_arg(op[3]), c)
            self.slots[r][int(op[5])] = self._recv_req(rv)
            c.end = t
            self._schedule(t, r)
        elif name in ("wait", "testloop"):
            slots = [int(x) for x in op[-1].split(",")]
            reqs = [self.slots[r].pop(s) for s in slots]
            c = self._call(r, name)
            poll = float(op[1]) if name == "testloop" else None
            for q in reqs:
                if q.kind == "recv":
                    self._set_completing(q.obj, c)
                elif q.kind == "send":
                    self.send_done[id(q.obj)] = c
                elif q.kind == "coll":
                    g, key = q.obj
                    self._coll_set_done(g, key, r, c)
            self._wait_reqs(r, c, reqs, poll)
        elif name == "probeloop":
            g = self.p.groups[(int(op[2]), r)]
            c = self._call(r, "probeloop")
            self._probe_loop(r, c, g, rank_arg(op[3]), rank_arg(op[4]), float(op[1]))
        elif name == "coll":
            g = self.p.groups[(int(op[2]), r)]
            c = self._call(r, op[1])
            key = self._coll_arrive(r, g, op[1], int(op[3]), c, None)
            self.blocked[r] = ("coll", None)

            def done(tm, deps, doc, c=c):
                del self.blocked[r]
                self._finish(c, tm, deps, doc)
            self._coll_wait(r, g, key, False, done)
        elif name == "icoll":
            g = self.p.groups[(int(op[2]), r)]
            c = self._call(r, "i" + op[1])
            key = self._coll_arrive(r, g, op[1], int(op[3]), c, None)
            req = Req("coll", (g, key))
            self.slots[r][int(op[4])] = req

            def ready(tm, deps, doc, req=req):
                self._complete(req, tm, deps, doc)
            self._coll_wait(r, g, key, True, ready)
            c.end = t
            self._schedule(t, r)
        else:
            raise ValueError("unknown op " + name)

    def _recv_req(self, rv):
        req = Req("recv", rv)

        def on_match():
            m = rv.msg
            if self.hi and m.mode == "sync":
                # At the latest when the sender is next inside MPI. The rules name the send's
                # posting and completing calls (docs/pag-rules.md rule 3): where its next call
                # is another and that matters, the walks by the rules and by the truth differ
                # and the program is undecided.
                def with_progress(pc):
                    self._complete(req, max(rv.time, pc.begin), [pc], [m.send_call, SendDone(m)])
                if m.progress_call is not None:
                    with_progress(m.progress_call)
                else:
                    m.progress_waiters.append(with_progress)
            else:
                self._complete(req, rv.time, [m.send_call])
        if rv.msg is not None:
            on_match()
        else:
            rv.waiters.append(on_match)
        return req

    def _wait_reqs(self, r, c, reqs, poll=None):
        """Blocks rank r in call c until every request is complete."""
        self.blocked[r] = ("wait", None)

        def attempt():
            for q in reqs:
                if q.time is None:
                    q.waiters.append(attempt)
                    return
            t = max([q.time for q in reqs] + [c.begin])
            if poll is not None and t > c.begin and self.hi:
                t += poll / 1000.0  # the loop notices the completion at its next poll
            deps = [d for q in reqs for d in q.deps if d.rank != r]
            doc = [d for q in reqs for d in q.doc if d.rank != r]
            del self.blocked[r]
            self._finish(c, t, deps, doc)
        attempt()

    def _probe_loop(self, r, c, g, src, tag, poll_us):
        """MPI_Iprobe loop, then MPI_Recv of what it found (two calls)."""
        def look():
            for m in self.unexpected[r]:
                if m.group is g and (src < 0 or src == m.src_local) and (tag < 0 or tag == m.tag):
                    return m
            return None

        def attempt():
            m = look()
            if m is None:
                self.blocked[r] = ("probe", attempt)
                return
            t = max(c.begin, m.time)
            if t > c.begin and self.hi:
                t += poll_us / 1000.0
            if self.hi and m.mode == "sync" and m.progress_call is not m.send_call:
                # The receive after the probe would wait for the sender like any receive of a
                # non-blocking synchronous send; the generator never makes one.
                raise Undecided("a probed message of a non-blocking synchronous send is not modelled")
            self.blocked.pop(r, None)
            c.end = t
            c.deps = c.doc = [m.send_call]
            # The receive that follows takes exactly the probed message.
            rc = Call(r, len(self.calls[r]), "recv", t, None)
            self.calls[r].append(rc)
            self.unexpected[r].remove(m)
            rv = Recv()
            # src/tag keep the probe's own (maybe wildcard) arguments for check_matching.
            rv.rank, rv.group, rv.src, rv.tag, rv.post_call, rv.time = r, g, src, tag, rc, t
            rv.msg, rv.done_call, rv.waiters, rv.probe = None, rc, [], True
            rv.order = self.recv_order[r]
            self.recv_order[r] += 1
            self.recvs.append(rv)
            self._pair(rv, m, t)
            rc.end = t
            rc.deps = rc.doc = [m.send_call]
            self.now[r] = t
            self._schedule(t, r)
        self.blocked[r] = ("probe", attempt)
        attempt()


# ---------------------------------------------------------------------------------------------
# Deciding the prediction


def check_matching(sim, margin):
    """A wildcard receive whose match depends on which of two sources' messages arrives first
    must not have them closer than the margin."""
    for rv in sim.recvs:
        if rv.msg is None:
            raise Undecided("receive on rank %d is never matched" % rv.rank)
        if rv.src >= 0:
            continue
        m = rv.msg
        for m2 in sim.msgs:
            if m2 is m or m2.dst != rv.rank or m2.group is not rv.group or m2.src == m.src:
                continue
            if rv.tag >= 0 and m2.tag != rv.tag:
                continue
            if m2.recv is not None and m2.recv.order < rv.order:
                continue  # taken by an earlier receive whatever the order
            if abs(m2.time - m.time) < margin:
                raise Undecided("rank %d: wildcard receive could take the message of rank %d or %d (%.2f ms apart)"
                                % (rv.rank, m.src, m2.src, abs(m2.time - m.time)))


def walk(sim, margin, min_phase, doc=False, max_paths=64):
    """All phase sequences the backward walk can give when choices within the margin may go
    either way; with `doc`, the calls wait for what docs/pag-rules.md says (what an analysis of
    these times would follow) instead of what the model waited for."""
    ends = sorted(sim.finalize.values(), key=lambda c: -c.begin)
    latest = ends[0].begin
    todo = [(c, "begin", ()) for c in ends if latest - c.begin < margin]
    results = set()
    steps = 0
    while todo:
        c, at, seq = todo.pop()
        steps += 1
        if steps > 200000 or len(todo) > max_paths:
            raise Undecided("too many near-ties on the path")
        if at == "begin":
            if c.idx == 0:
                results.add(tuple(reversed(seq)))
                continue
            if c.phase is not None and sim.p.phase_ms[c.phase] >= min_phase:
                seq = seq + ((c.rank, c.phase),)
            todo.append((sim.calls[c.rank][c.idx - 1], "end", seq))
            continue
        cands = [(c.begin, c)] + [(d.begin, d) for d in (c.doc if doc else c.deps) if d.begin <= c.end]
        best = max(t for t, _ in cands)
        near = {id(d): d for t, d in cands if best - t < margin}
        for d in near.values():
            todo.append((d, "begin", seq))
        if len(results) > max_paths:
            raise Undecided("too many near-ties on the path")
    return results


def predict(prog, margin=4.0, min_phase=2.0):
    """The predicted path as a list of (rank, phase), or raises Undecided.

    Three walks must agree: the least-waiting run (where the model is docs/pag-rules.md), the
    most-waiting run followed along what it really waited for (the truth if MPI waits that
    much), and the most-waiting run followed along the rules' candidates (what an analysis of
    such a run finds)."""
    paths, pairs = {}, {}
    for scenario in ("lo", "hi"):
        sim = Sim(prog, scenario)
        sim.run()
        check_matching(sim, margin)
        pairs[scenario] = sorted((m.src, m.send_call.idx, m.recv.rank, m.recv.post_call.idx) for m in sim.msgs
                                 if m.recv is not None)
        for doc in ((False,) if scenario == "lo" else (False, True)):
            name = scenario + (" by the rules" if doc else "")
            res = walk(sim, margin, min_phase, doc)
            if len(res) != 1:
                raise Undecided("%s: %d different paths within the margin" % (name, len(res)))
            paths[name] = next(iter(res))
    if pairs["lo"] != pairs["hi"]:
        raise Undecided("the matching depends on how long MPI waits")
    if len(set(paths.values())) != 1:
        raise Undecided("the path depends on how long MPI waits (%s)" % paths)
    return list(paths["lo"])


def main():
    args = sys.argv[1:]
    margin, min_phase = 4.0, 2.0
    if "--margin" in args:
        i = args.index("--margin")
        margin = float(args[i + 1])
        del args[i:i + 2]
    if "--min-phase" in args:
        i = args.index("--min-phase")
        min_phase = float(args[i + 1])
        del args[i:i + 2]
    prog = Program(open(args[0]).read())
    try:
        path = predict(prog, margin, min_phase)
    except Undecided as e:
        print("undecided: %s" % e)
        return 1
    for r, ph in path:
        print("%d %d %.3f" % (r, ph, prog.phase_ms[ph]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
