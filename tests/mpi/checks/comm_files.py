"""Readers for the communication files beside report.json (docs/report.md), standard library
only, for the comm_* checks."""
import csv
import os


def rows(run, name):
    with open(os.path.join(run.dir, name), newline="") as f:
        return list(csv.DictReader(f))


def p2p(run):
    """{(src, dst): (bytes, messages)}"""
    out = {}
    for r in rows(run, "comm_p2p.csv"):
        key = (int(r["src"]), int(r["dst"]))
        assert key not in out, "pair %s listed twice" % (key,)
        out[key] = (int(r["bytes"]), int(r["messages"]))
    return out


def histogram(run):
    """{(rank, kind, bin): count}"""
    return {(int(r["rank"]), r["kind"], int(r["bin"])): int(r["count"]) for r in rows(run, "comm_histogram.csv")}


def collectives(run):
    """{(comm, op, rank): (comm_size, calls, bytes_sent, bytes_recv)} (None = unknown)"""
    out = {}
    for r in rows(run, "comm_collectives.csv"):
        opt = lambda v: None if v == "" else int(v)
        out[(r["comm"], r["op"], int(r["rank"]))] = (int(r["comm_size"]), int(r["calls"]), opt(r["bytes_sent"]),
                                                     opt(r["bytes_recv"]))
        assert int(r["time_ns"]) >= 0
    return out


def size_bin(nbytes):
    """Open MPI's monitoring bins: 0 for empty messages, k for [2^(k-1), 2^k)."""
    return nbytes.bit_length()


def diff(got, want, what):
    if got == want:
        return
    lines = []
    for k in sorted(set(got) | set(want), key=str):
        if got.get(k) != want.get(k):
            lines.append("  %s: got %s, expected %s" % (k, got.get(k), want.get(k)))
    raise AssertionError("%s differs:\n%s" % (what, "\n".join(lines[:30])))
