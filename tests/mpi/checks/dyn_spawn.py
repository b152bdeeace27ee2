"""MPI_Comm_spawn (tests/mpi/dyn_spawn.c): the parent job and the 2 spawned children are both
recorded, each job with its own report (the children's in <out>-spawned); the messages over the
intercommunicator make the report say `approximated` with the cause intercommunicator, on both
sides, and a spawn without messages leaves both reports exact."""
import glob
import json
import os
import subprocess


def causes(rep):
    return {a["cause"]: a["count"] for a in rep["analysis"]["approximations"]}


def check(run):
    exchange = "exchange" in run.cmd
    assert run.report is not None, "no parent report"
    child_dir = run.dir + "-spawned"
    path = os.path.join(child_dir, "report.json")
    assert os.path.exists(path), "no report of the spawned job in %s (got %s)" % (
        child_dir, glob.glob(run.dir + "*"))
    child = json.load(open(path))
    assert child.get("ranks") == 2, "the spawned job's report should have 2 ranks: %s" % child.get("ranks")
    # Both sides recorded: the children's traces have their calls.
    got = subprocess.run([run.reader, "--summary", os.path.join(child_dir, "trace.0.cpt")],
                         capture_output=True, text=True, check=True).stdout
    assert "call MPI_Comm_get_parent count=1" in got, got
    assert "call MPI_Comm_disconnect count=1" in got, got
    if exchange:
        assert "call MPI_Recv count=1" in got and "call MPI_Send count=1" in got, got
    for name, rep in (("parent", run.report), ("children", child)):
        c = causes(rep)
        if exchange:
            assert not rep["analysis"]["exact"] and c.get("intercommunicator", 0) > 0, \
                "%s: intercommunicator messages not reported as approximated: %s" % (name, c)
        else:
            assert rep["analysis"]["exact"], "%s: approximated without intercommunicator work: %s" % (name, c)
