"""Guards every collection test against passing vacuously.

run_mpi_test.py passes when the program fails identically with and without the library (for
example when it cannot be launched at all), and it checks only the ranks that wrote an
expectation file. This check requires that every rank wrote expectations, that every rank's
trace file exists and decodes, and that the summary names the right rank.
"""
import os
import re


def check(run):
    expect_dir = os.path.join(os.path.dirname(run.dir), "expect")
    for rank in range(run.np):
        exp = os.path.join(expect_dir, "expect.%d.txt" % rank)
        assert os.path.exists(exp), "rank %d wrote no expectation file (did the program run?)" % rank
        lines = [l for l in open(exp) if l.strip() and not l.startswith("#")]
        assert lines, "rank %d's expectation file is empty" % rank
        trace = os.path.join(run.dir, "trace.%d.cpt" % rank)
        assert os.path.exists(trace), "no trace file for rank %d" % rank
        summary = run.summary(rank)
        assert summary and re.match(r"rank %d events \d+ trace_bytes \d+ threads \d+ merged_polls \d+$" % rank, summary[0]), \
            "unexpected summary header for rank %d: %r" % (rank, summary[:1])
