"""cp_handle_reuse.c: thread A's MPI_Irecv, held 20 ms inside, got the handle thread B's MPI_Wait
had freed. Each MPI_Wait must complete its own thread's receive: on one clock no receive may end
before its send began (no clock-condition violation), and the only Late Sender is thread A's wait
for the tag-1 message sent 60 ms after the round began (B's message was there before B asked).
Linked at the posting call's begin, B's 10 us MPI_Wait completed A's receive: 3 violations and a
55 ms Late Sender at B's wait."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from cp_probes import wait_rows  # noqa: E402


def check(run):
    if "MPI_THREAD_MULTIPLE not provided" in run.stdout:
        return
    same = run.stdout.count("same handle")
    # Without a reused handle the case is not exercised: the MPI changed, the test must say so.
    assert same >= 1, "no round gave both threads the same handle:\n" + run.stdout
    clock = run.report["analysis"]["clock"]
    if clock["hosts"] == 1 and not clock["simulated_hosts"]:
        assert clock["violations"] == 0, "clock-condition violations on one clock (a wrong completion): %s" % clock
    # Thread A's MPI_Wait is the first in the source, thread B's the second.
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cp_handle_reuse.c")
    waits = [n for n, line in enumerate(open(src), 1) if "MPI_Wait(&r" in line]
    a_site, b_site = "cp_handle_reuse.c:%d" % waits[0], "cp_handle_reuse.c:%d" % waits[1]
    ls = wait_rows(run).get("Late Sender")
    assert ls and ls["lost_s"] > 0.01 and ls["instances"] <= 3, ls
    sites = [w["site"] for w in ls["worst"]]
    assert b_site not in sites, "thread B's wait, for a message already there, is a Late Sender: %s" % ls["worst"]
    assert a_site in sites, "thread A's wait for the late tag-1 message is no Late Sender: %s" % ls["worst"]
