"""Known answers of the probe programs (tests/mpi/cp_probe.c), one per mode. Each assertion
would be false if the rule it probes (docs/pag-rules.md) were wrong: the late rank's
computation is (or is not) on the path, by margins of tens of milliseconds."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from cp_paths import load_path, time_by_rank, check_invariant  # noqa: E402
import timeline_checks  # noqa: E402

MS = 1e-3


def mode_of(run):
    m = re.search(r"^cp_probe (\S+) done$", run.stdout, re.M)
    assert m, "the program did not finish (no 'cp_probe MODE done' line)"
    return m.group(1)


def causes(run):
    return {a["cause"]: a["count"] for a in run.report["analysis"]["approximations"]}


def compute_on(run):
    # Only the probe itself: computation before the program's first MPI_Barrier (timeline
    # event 1 on every rank, after MPI_Init) is start-up noise on a loaded machine.
    return time_by_rank([s for s in load_path(run) if s["kind"] != "compute" or s["event"] > 1], "compute")


def mpi_on(run):
    # MPI time on the path after the probe's first MPI_Barrier: MPI_Init (event 0) is on the path
    # on whichever rank entered it last, a matter of start-up.
    return time_by_rank([s for s in load_path(run) if s["kind"] == "mpi" and s["event"] > 1], "mpi")


def last_rank_came_last_unsynchronised(run, late_ms, rank0_mpi_ms):
    """Collectives MPI need not synchronise, the last rank late into each: on one clock no
    clock-condition violation, its computation on the path, rank 0's waiting not, exact."""
    clock = run.report["analysis"]["clock"]
    if clock["hosts"] == 1 and not clock["simulated_hosts"]:
        assert clock["violations"] == 0, "clock-condition violations on one clock: %s" % clock
    late_rank_on_path(run, run.np - 1, late_ms)
    mpi0 = mpi_on(run).get(0, 0)
    assert mpi0 <= rank0_mpi_ms * MS, "rank 0's MPI time on the path is %.1f ms: it waited, it did not delay" % (mpi0 / MS)
    expect_exact(run)


def late_rank_on_path(run, late, at_least_ms, absent=(), at_most_ms=10):
    comp = compute_on(run)
    assert comp.get(late, 0) >= at_least_ms * MS, \
        "rank %d's computation on the path is %.1f ms (expected >= %d ms): %s" % (
            late, comp.get(late, 0) / MS, at_least_ms, {r: round(t / MS, 1) for r, t in comp.items()})
    for r in absent:
        assert comp.get(r, 0) <= at_most_ms * MS, \
            "rank %d's computation (%.1f ms) is on the path, but the path must not go there: %s" % (
                r, comp.get(r, 0) / MS, {k: round(t / MS, 1) for k, t in comp.items()})


def mpi_chose_to_wait(run, pattern, rank0_ms, between_ok=False):
    """Probes whose waiting is the MPI library's choice: rank 0 prints how long it waited
    (`pattern`). Waited (>= 30 ms of rank 1's 60): rank 1's computation must be on the path;
    did not (<= 5 ms): rank 0's own rank0_ms must, rank 1's must not. Returns whether it waited."""
    m = re.search(pattern, run.stdout)
    assert m, "rank 0 did not say how long it waited (%s)" % pattern
    ms = float(m.group(1))
    if ms >= 30:
        late_rank_on_path(run, 1, 45)
        return True
    if ms <= 5:
        late_rank_on_path(run, 0, rank0_ms, absent=(1,))
        return False
    if between_ok:
        # A send the MPI may hold only for a while (Open MPI's fast boxes, a descheduled
        # rank on a busy machine): no known answer, the other checks still apply.
        print("cp_probes: rank 0 waited %.1f ms, neither at once nor for rank 1: path not checked" % ms)
        return None
    raise AssertionError("rank 0 waited %.1f ms: neither at once nor for rank 1 (a loaded machine?)" % ms)


def waited_for_rank1_or_not(run):
    """Rank 0 prints how long its call waited: where it waited for rank 1, rank 1's 60 ms are on
    the path (a call paired with the wrong instance, or not recorded, left them off); where it
    did not, rank 0's 90 ms are and rank 1's are not. Exact either way."""
    assert "wrong data" not in run.stdout, run.stdout
    mpi_chose_to_wait(run, r"rank 0 waited ([0-9.]+) ms", 90, between_ok=True)
    expect_exact(run)


def posted_before(run, late, late_call, waiter, wait_call):
    """Whether the late rank's last `late_call` began before the waiter's last `wait_call` (the
    timeline's slices, one clock on one host)."""
    tl = timeline_checks.load(run)
    a = [e["ts"] for e in timeline_checks.slices(tl, late, late_call)]
    b = [e["ts"] for e in timeline_checks.slices(tl, waiter, wait_call)]
    return bool(a) and bool(b) and max(a) < max(b)


def wait_rows(run):
    """The report's wait-state rows by pattern name."""
    return {w["pattern"]: w for w in run.report["wait_states"]}


def expect_exact(run):
    a = run.report["analysis"]
    assert a["exact"], "analysis approximated: %s" % a["approximations"]


def check(run):
    check_invariant(run)
    mode = mode_of(run)
    np_ = run.np
    if mode == "init_gap":
        # Each rank's computation before its first barrier on the path is at most what the
        # program measured (MPICH: libcpath's start-up collectives put 40-50 ms there).
        gaps = {int(r): float(ms) for r, ms in re.findall(r"rank (\d+) computed ([0-9.]+) ms after MPI_Init", run.stdout)}
        assert len(gaps) == np_, "not every rank said how long it computed: %s" % gaps
        before = time_by_rank([s for s in load_path(run) if s["kind"] == "compute" and s["event"] <= 1], "compute")
        for r, t in before.items():
            assert t <= (gaps[r] + 3) * MS, "rank %d: %.1f ms of computation after MPI_Init on the path, the program measured %.1f ms" % (
                r, t / MS, gaps[r])
        expect_exact(run)
    elif mode == "unknown_comm":
        # Per rank: Sendrecv (a send and a receive), Allreduce, Barrier on the unseen communicator.
        a = run.report["analysis"]
        assert not a["exact"], "the report says exact although operations were not placed"
        c = causes(run)
        assert c.get("unknown_communicator") == 4 * np_, "unknown_communicator: %s (expected %d)" % (c, 4 * np_)
        for row in a["approximations"]:
            assert row["text"], "approximation without a sentence: %s" % row
        assert "[unknown_communicator]" in run.stdout, "the text report does not list the cause"
    elif mode.startswith("neighbor_"):
        # Rank 0 waits for its in-neighbour rank 1 (50 ms), never for the later non-neighbour.
        late_rank_on_path(run, 1, 40, absent=(2, 3) if mode == "neighbor_dist" else (3,))
        expect_exact(run)
    elif mode in ("poll_test", "poll_testall", "poll_iprobe"):
        # Rank 0 polled while rank 1 computed 60 ms: the path goes to rank 1's computation.
        late_rank_on_path(run, 1, 50)
        # Rank 0's computation on the path is the 30 ms after its loop (the path's last
        # segment); none of the polling loop's time may count as computation.
        segs = [s for s in load_path(run) if s["kind"] == "compute" and s["event"] > 1]
        last = max(segs, key=lambda s: s["end"])
        loop = sum(s["end"] - s["begin"] for s in segs if s["rank"] == 0 and s is not last) * 1e-9
        assert last["rank"] == 0, "the path does not end with rank 0's computation: %s" % last
        assert loop < 5 * MS, "rank 0's polling loop counted as computation: %.1f ms" % (loop / MS)
        expect_exact(run)
    elif mode == "poll_count":
        # All of rank 0's 20 000 probes lie between the two barriers it came last to: the
        # path's count of MPI_Iprobe is theirs, not the trace's records (merged polls).
        calls = {c["call"]: c["count"] for c in run.report["critical_path"]["by_mpi_call"]}
        assert calls.get("MPI_Iprobe") == 20000, "MPI_Iprobe calls on the path: %s" % calls.get("MPI_Iprobe")
        late_rank_on_path(run, 0, 45)
        expect_exact(run)
    elif mode == "poll_cycle":
        # The cycle of polls merged into a few records, and the path still counts each call
        # the program made: the 12000 MPI_Test and 6000 MPI_Iprobe before the barrier are all
        # on it, and a share of the loop after it.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"calls MPI_Test (\d+) MPI_Iprobe (\d+)", run.stdout)
        assert m, run.stdout
        made = {"MPI_Test": int(m.group(1)), "MPI_Iprobe": int(m.group(2))}
        before = {"MPI_Test": 12000, "MPI_Iprobe": 6000}
        calls = {c["call"]: c["count"] for c in run.report["critical_path"]["by_mpi_call"]}
        for call, n in made.items():
            assert before[call] <= calls.get(call, 0) <= n, (call, calls.get(call), made)
        tr = run.report["trace"]
        assert tr["polls_merged"] >= 9000, "the cycle of polls did not merge: %s" % tr
        late_rank_on_path(run, 2, 80)
        late_rank_on_path(run, 0, 45)
        expect_exact(run)
    elif mode == "poll_desched":
        # Rank 0 was off the CPU for 80 ms between two polls; it worked ~1 ms there. Counted as
        # computation (wall time), the gap broke the loop, the wait started at the first poll
        # after it (after the message came) and rank 0's own 120 ms were the path.
        assert "wrong data" not in run.stdout, run.stdout
        late_rank_on_path(run, 1, 50)
        ls = wait_rows(run).get("Late Sender")
        assert ls and ls["instances"] == 1 and ls["lost_s"] >= 0.04, ls
        expect_exact(run)
    elif mode == "poll_chunks":
        # Rank 1's 70 ms are on the path; the message came while rank 0 was in its third 30 ms
        # chunk, found by the Test after it (at 90 ms). Those last ~20 ms are rank 0's work on
        # the path, computation, and its MPI time on the path is only its Tests and the
        # Irecv: before rule 7 split the span, they counted as 20 ms of MPI_Test.
        assert "wrong data" not in run.stdout, run.stdout
        late_rank_on_path(run, 1, 60)
        mpi0 = mpi_on(run).get(0, 0)
        assert mpi0 <= 5 * MS, "rank 0's MPI time on the path is %.1f ms: its work between polls counted as MPI" % (mpi0 / MS)
        # Its computation: the ~20 ms in the loop after the send began, and the final 30 ms.
        comp0 = compute_on(run).get(0, 0)
        assert 38 * MS <= comp0 <= 65 * MS, "rank 0's computation on the path is %.1f ms (expected ~50)" % (comp0 / MS)
        ls = wait_rows(run).get("Late Sender")
        assert ls and ls["instances"] == 1 and 0.03 <= ls["lost_s"] <= 0.06, ls
        expect_exact(run)
    elif mode == "bsend_worker":
        # The path is in rank 0's MPI_Bsend (its own packing) while the worker computes: the
        # worker is not in that call. Before samples were told apart by thread, worker_kernel
        # was a row of the path's "inside MPI" table.
        late_rank_on_path(run, 0, 30)
        hot = run.report["hotspots"]
        assert run.report["pmu"]["enabled"], "sampling is off"
        worker = [h for h in hot["all"] if h["function"] == "worker_kernel"]
        inside = [h for h in hot["critical_path_mpi"] if h["function"] == "worker_kernel"]
        assert not inside, "the worker thread's computation is listed inside the path's MPI call: %s" % inside
        # Without any sample of the worker the check above would hold whatever the attribution.
        assert worker, "no sample of worker_kernel at all: the probe did not exercise the thread split"
        expect_exact(run)
    elif mode == "poll_held":
        # Rank 1's message (60 ms) came while rank 0 was blocked in MPI_Recv from rank 2 (90 ms):
        # the Wait that completed the polled Irecv waited for nobody, and the path goes through
        # the Recv to rank 2. Counting the whole span from the first poll as waiting for rank 1
        # (rule 5 without its exception) put rank 1's 60 ms on the path instead.
        late_rank_on_path(run, 2, 75, absent=(1,))
        assert "wrong data" not in run.stdout, run.stdout
        expect_exact(run)
    elif mode in ("poll_self", "poll_self_progress"):
        # The loop of MPI_Request_get_status waited for the late rank (60 ms) and ended when it
        # saw the allreduce done. Taken as completed by the later MPI_Waitall, the allreduce's
        # candidate would sit beside the MPI_Iscan's, rank 0's own posting call after the loop,
        # which is later and hid the late rank: the loop then counted as rank 0's computation.
        # poll_self_progress: the late rank's progress call is the latest candidate, and the
        # loop is not tight enough to count as waiting for it; it still counts as waiting for
        # the late rank's post (rule 4 with rule 5).
        late_rank_on_path(run, 2 if mode == "poll_self_progress" else 1, 50)
        assert "wrong data" not in run.stdout, run.stdout
        expect_exact(run)
    elif mode in ("poll_testany_work", "poll_test_work"):
        # Rank 0 worked 40 ms on rank 2's message, then found rank 1's there: rank 1 delayed
        # nobody. The MPI_Testany that returned rank 2's message also listed rank 1's receive
        # (the MPI_Test of it, a call of the loop polling rank 1's): counted into that loop,
        # the 40 ms of work became a wait for rank 1.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank (\d)'s message first, then ([0-9.]+) ms for the other", run.stdout)
        assert m, "rank 0 did not say what it received first"
        if m.group(1) == "2" and float(m.group(2)) <= 5:
            late_rank_on_path(run, 0, 125, absent=(1,), at_most_ms=5)
            late_rank_on_path(run, 2, 20)
        else:
            print("cp_probes: %s did not run as written (%s): path not checked" % (mode, m.group(0)))
        expect_exact(run)
    elif mode == "poll_reuse":
        # MPI_Wait after a successful MPI_Request_get_status frees the handle; left in the
        # request table, it took the next round's completion (the MPI reuses the object), so
        # three of the four rounds never ended and rank 0's polling counted as its own work.
        assert "wrong data" not in run.stdout, run.stdout
        ls = wait_rows(run).get("Late Sender")
        assert ls and ls["instances"] == 4 and 0.08 <= ls["lost_s"] <= 0.16, ls
        late_rank_on_path(run, 1, 100, absent=(0,), at_most_ms=40)
        expect_exact(run)
    elif mode == "rooted_bcast_small_loop":
        # Eager broadcasts: rank 2 waits only for the root, the root for nobody. Ranks 1 and 3
        # entering while a descheduled rank 2 was still inside a broadcast held nothing.
        assert "wrong data" not in run.stdout, run.stdout
        late_rank_on_path(run, 2, 140, absent=(1, 3), at_most_ms=10)
        assert run.report["analysis"]["clock"]["collective_calls_beyond_pattern"] == 0, run.report["analysis"]["clock"]
        expect_exact(run)
    elif mode == "scan_early":
        # Rank 3 posted its scan after rank 1 had completed its own and sent to it: the
        # re-timing must not wait for rank 3 to answer rank 1 (a cycle of its own making).
        assert "wrong data" not in run.stdout, run.stdout
        info = run.report.get("what_if_info") or {}
        assert not info.get("note"), "what-if: %s" % info.get("note")
        assert "dependency_cycle" not in causes(run), causes(run)
        assert run.report.get("what_if"), "no what-if table"
        late_rank_on_path(run, 3, 20)
    elif mode in ("rooted_bcast", "rooted_gather", "rooted_reduce", "rooted_scan", "rooted_bcast_eager", "rooted_ibcast",
                  "rooted_ibcast_test", "out_neighbor"):
        # Above the eager limit the MPI synchronised the rooted collective against its pattern:
        # the root of the broadcast waited for rank 1, rank 1's gather or reduction for the
        # root. Waited (>= 30 ms): the late rank's 60 ms on the path and a Wait in Collective
        # row; taken as the pattern says, the wait was the waiter's own MPI time. Did not
        # (<= 5 ms): nothing to find.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank (\d) waited ([0-9.]+) ms for rank (\d)", run.stdout)
        assert m, "the waiting rank did not say how long it waited"
        waiter, ms, late = int(m.group(1)), float(m.group(2)), int(m.group(3))
        # The root's MPI_Wait began after its 100 ms of work; when rank 1 had posted by then, the
        # wait was the 4 MiB transfer, which MPICH progresses only inside MPI_Wait (30-41 ms on
        # 2 CPUs), not a wait for rank 1.
        transfer = ms >= 30 and mode == "rooted_ibcast" and posted_before(run, late, "MPI_Ibcast", waiter, "MPI_Wait")
        if transfer:
            print("cp_probes: rank %d waited %.1f ms, after rank %d had posted: the transfer, path not checked" % (
                waiter, ms, late))
        elif ms >= 30:
            late_rank_on_path(run, late, 45)
            # The call's own time after the late rank came stays the waiter's MPI time (MPICH's
            # 1 MiB reduction: 25 ms of exchanges on a loaded machine); the 60 ms wait must not.
            mpi_w = mpi_on(run).get(waiter, 0)
            assert mpi_w <= max(15, ms - 50) * MS, "rank %d's wait (%.1f ms of %.1f) is on the path as its own MPI time" % (
                waiter, mpi_w / MS, ms)
            wic = wait_rows(run).get("Wait in Collective")
            assert wic and wic["lost_s"] >= 0.03, wait_rows(run)
            assert run.report["analysis"]["clock"]["collective_calls_beyond_pattern"] >= 1, run.report["analysis"]["clock"]
            # With the late rank's computation removed (option whatif=rankN:0) nobody waits:
            # the run gains its 60 ms. Kept as the pattern says, the waiter's wait was its own
            # MPI time and stayed in the re-timed run.
            user = [w for w in run.report.get("what_if", []) if w["kind"] == "user"]
            assert len(user) <= 1 and (not user or user[0]["gain_s"] >= 0.04), user
        elif ms <= 5:
            late_rank_on_path(run, waiter, 35, absent=(late,))
        else:
            print("cp_probes: rank %d waited %.1f ms, neither at once nor for rank %d: path not checked" % (waiter, ms, late))
        expect_exact(run)
    elif mode == "disconnect_paused":
        # Counted while not recording, like a collective: every member numbers the
        # communicator's collectives alike (one short on rank 0 before: a false mismatch).
        assert "wrong data" not in run.stdout, run.stdout
        c = causes(run)
        assert "collective_count_mismatch" not in c, c
        assert c.get("paused", 0) >= 1, c
    elif mode == "win_order":
        # The fence pairs with the other members' fences, not with their barrier: rank 0's
        # fence waited for rank 1 (both MPIs), whose 60 ms must be on the path.
        waited_for_rank1_or_not(run)
    elif mode == "persistent_small":
        # Held or not, as Open MPI chose: rank 1's 60 ms on the path exactly when rank 0 waited.
        waited_for_rank1_or_not(run)
    elif mode == "win_set_info":
        # MPI_Win_set_info is an instance of the window's communicator, pattern all; both MPIs
        # waited in it for rank 1. Not recorded, it left rank 0's wait inside its computation.
        waited_for_rank1_or_not(run)
    elif mode == "disconnect":
        # MPI_Comm_disconnect is an instance of its communicator, pattern all: Open MPI's waited
        # for rank 1 (a local call before: rank 0's 60 ms wait was its own MPI time on the
        # path); MPICH's did not, and the members that left first are not synchronised.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank 0 waited ([0-9.]+) ms", run.stdout)
        assert m, "rank 0 did not say how long it waited"
        ms = float(m.group(1))
        if ms >= 30:
            late_rank_on_path(run, 1, 45)
            mpi0 = mpi_on(run).get(0, 0)
            assert mpi0 <= 15 * MS, "rank 0's wait (%.1f ms) is on the path as its own MPI time" % (mpi0 / MS)
            assert wait_rows(run).get("Wait at NxN", {}).get("lost_s", 0) >= 0.03, wait_rows(run)
        elif ms <= 5:
            late_rank_on_path(run, 0, 90, absent=(1,))
            assert run.report["analysis"]["clock"]["unsynchronised_collective_calls"] >= 1, run.report["analysis"]["clock"]
        expect_exact(run)
    elif mode in ("mprobe_rendezvous", "improbe_imrecv", "mprobe_ssend"):
        # Above the eager limit the send waited for the MPI_Mrecv / MPI_Imrecv, which gives the
        # buffer, not for the matched probe 80 ms before it: rank 0's 20 + 80 ms are on the
        # path and the Late Receiver's lost time is about 100 ms (taken as waiting for the
        # probe: 20 ms, and rank 1's 80 ms of MPI time on the path).
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank 1 waited ([0-9.]+) ms", run.stdout)
        assert m, "rank 1 did not say how long its send took"
        if float(m.group(1)) >= 90:
            late_rank_on_path(run, 0, 90)
            lr = wait_rows(run).get("Late Receiver")
            assert lr and lr["lost_s"] >= 0.09, wait_rows(run)
        else:
            print("cp_probes: rank 1's send took %s ms: the MPI did not wait for the receive, path not checked" % m.group(1))
        expect_exact(run)
    elif mode == "nbc_progress_overlap":
        # Rank 0's 20 ms of work in 1 ms chunks (tests between them) plus its 40 ms: on the path.
        # Rank 2's 10 ms ran beside them; counted as a wait from the first test they were on it.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"last post ([-0-9.]+) ms after rank 0's first test; rank 2 in MPI_Wait ([-0-9.]+) ms after it "
                      r"and ([-0-9.]+) ms before", run.stdout)
        assert m, "rank 0 did not print when the others posted"
        post_late, back_after, back_before = (float(g) for g in m.groups())
        if back_after > post_late and back_before > 0:
            late_rank_on_path(run, 0, 55, absent=(2,), at_most_ms=3)
        else:
            # A member posted late in rank 0's loop (rule 5 then takes the loop's chunks for a
            # wait for that post: a trace cannot tell fixed work from polling, ground-truth.md),
            # or rank 2 came back after rank 0's last test: descheduled on a loaded machine.
            print("cp_probes: nbc_progress_overlap did not run as written (%s): path not checked" % m.group(0))
        expect_exact(run)
    elif mode == "nbc_progress_bcast":
        # MPICH's tree: rank 3 waits for the inner rank 2 (60 ms), not for the root (30 ms).
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank 3 waited ([0-9.]+) ms", run.stdout)
        assert m, "rank 3 did not say how long its MPI_Wait took"
        if float(m.group(1)) >= 45:
            late_rank_on_path(run, 2, 40, absent=(0,), at_most_ms=5)
        else:
            late_rank_on_path(run, 3, 35, absent=(0, 2), at_most_ms=5)
        expect_exact(run)
    elif mode.startswith("nbc_progress"):
        # Rank 2 posted the non-blocking collective in time, then computed without entering MPI:
        # the instance moved only when it did (its MPI_Wait; _two: after its second post), and
        # rank 0's MPI_Wait lasted until then. _irecv, _send, _ipost: a call 1 ms after the
        # post that does not poll MPI's progress (MPI_Irecv, an eager MPI_Send, MPI_Ibarrier)
        # did not move it either; taking it as the progress left rank 0's wait its own MPI time.
        # _poll_early: rank 2's MPI_Iprobe came before rank 3's late post, so it could not.
        # Rank 2's 80 ms must be on the path; taken as the pattern says (the posts only), rank
        # 0's wait was its own MPI time. _early: rank 2's progress came before the others
        # waited, so it must stay off the path.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank 0 waited ([0-9.]+) ms", run.stdout)
        assert m, "rank 0 did not say how long its MPI_Wait took"
        waited = float(m.group(1))
        if mode == "nbc_progress_early":
            if waited <= 10:
                late_rank_on_path(run, 0, 100, absent=(2,))
            else:
                print("cp_probes: rank 0 waited %.1f ms in an early-progress probe: path not checked" % waited)
        elif waited >= 50:
            late_rank_on_path(run, 2, 60)
            mpi0 = mpi_on(run).get(0, 0)
            assert mpi0 <= max(10, waited - 50) * MS, "rank 0's wait (%.1f ms of %.1f) is on the path as its own MPI time" % (
                mpi0 / MS, waited)
            user = [w for w in run.report.get("what_if", []) if w["kind"] == "user"]
            assert len(user) <= 1 and (not user or user[0]["gain_s"] >= 0.04), user
        else:
            print("cp_probes: rank 0 waited %.1f ms: the MPI progressed without rank 2, path not checked" % waited)
        expect_exact(run)
    elif mode in ("bsend_detach", "bsend_detach_eager", "ibsend_detach"):
        # 1 MiB: the message left rank 0's buffer only once rank 1's receive was posted, 80 ms
        # after the barrier, and MPI_Buffer_detach waited for that (rank 0 prints how long):
        # rank 1's 80 ms are on the path with a Late Receiver in the detach. Taken as a local
        # call, the detach's 70 ms were rank 0's own MPI time. 64 bytes: eager, the detach
        # waited for nobody and rank 1 stays off the path.
        assert "wrong data" not in run.stdout, run.stdout
        m = re.search(r"rank 0 waited ([0-9.]+) ms in MPI_Buffer_detach", run.stdout)
        assert m, "rank 0 did not say how long its MPI_Buffer_detach took"
        waited = float(m.group(1))
        if mode == "bsend_detach_eager":
            assert waited < 30, "an eager buffered send's detach waited %.1f ms" % waited
            late_rank_on_path(run, 0, 100, absent=(1,))
        elif waited >= 50:
            late_rank_on_path(run, 1, 60)
            lr = wait_rows(run).get("Late Receiver")
            assert lr and lr["lost_s"] >= 0.05, wait_rows(run)
        else:
            print("cp_probes: rank 0's detach took %.1f ms: the MPI did not wait for the receive, path not checked" % waited)
        expect_exact(run)
    elif mode == "create_group":
        # MPI_Comm_create_group is instance 0 of the new communicator over its members: they
        # waited for rank 1 there. Taken as a local call, rank 3's 50 ms wait in it was its own
        # MPI time on the path and rank 1 was not on it.
        assert "wrong data" not in run.stdout, run.stdout
        late_rank_on_path(run, 1, 40)
        expect_exact(run)
    elif mode == "thread_balance":
        # Every rank computed 60 ms of wall-clock time (rank 0 in two threads at once): already
        # balanced. Summed over rank 0's threads its compute was 180 ms, the mean 90 ms, and the
        # scenario stretched the other ranks' 60 ms to 90 ms (about -30 ms).
        assert "wrong data" not in run.stdout, run.stdout
        bal = [w for w in run.report["what_if"] if w["kind"] == "balance"]
        assert len(bal) == 1 and abs(bal[0]["gain_s"]) <= 0.012, bal
    elif mode == "poll_two":
        # One loop waited for both: 90 ms in all (the later sender), not 60 + 90. The second
        # wait is counted from the end of the call that ended the first.
        assert "wrong data" not in run.stdout, run.stdout
        ls = wait_rows(run).get("Late Sender")
        assert ls and ls["instances"] == 2 and 0.07 <= ls["lost_s"] <= 0.125, ls
        late_rank_on_path(run, 2, 80)
        expect_exact(run)
    elif mode == "poll_gap":
        # Rank 0 waited 20 ms for the first message and 10 ms for the second: its three stray
        # probes after the first, followed by 100 ms of its own work (more than rule 5's 50 ms
        # between two polls of a loop), do not start the second
        # wait (before the fix: 110 ms, with rank 0's computation counted as waiting).
        assert "wrong data" not in run.stdout, run.stdout
        ls = wait_rows(run).get("Late Sender")
        assert ls and ls["instances"] == 2 and 0.02 <= ls["lost_s"] <= 0.06, ls
        late_rank_on_path(run, 1, 110)
        # With rank 1's computation halved (option whatif=rank1:0.5) rank 0 is still busy for
        # its 100 ms when the second message comes: the run gains the first exchange's 10 ms and
        # the second wait's 10 ms, not the 65 ms it would if the stray probes had made rank 0
        # ready at once.
        user = [w for w in run.report["what_if"] if w["kind"] == "user"]
        assert len(user) == 1 and 0.005 <= user[0]["gain_s"] <= 0.040, user
        expect_exact(run)
    elif mode == "poll_control":
        # Rank 0 computed 60 ms between its polls, longer than rank 1 was late (20 ms after the
        # first poll): its computation stays on the path, rank 1's does not come on.
        late_rank_on_path(run, 0, 90, absent=(1,))
        expect_exact(run)
    elif mode == "persistent_bsend":
        # Each of the 8 starts is one send matched to its receive (matches.1.txt, option
        # matches=1), whatever handle the MPI gave the program at the start; nothing unmatched
        # or unknown, and on one clock no violation.
        with open(os.path.join(run.dir, "matches.0.txt")) as f:
            sends = [l for l in f if l.startswith("send ")]
        assert len(sends) == 8, "rank 0's trace has %d sends for 8 starts" % len(sends)
        with open(os.path.join(run.dir, "matches.1.txt")) as f:
            recvs = [l.split() for l in f if l.startswith("recv ")]
        matched = [r for r in recvs if r[2] == "0" and int(r[3]) >= 0]
        assert len(recvs) == 8 and len(matched) == 8, "%d of rank 1's %d receives matched a send of rank 0" % (len(matched), len(recvs))
        assert len({r[3] for r in matched}) == 8, "two receives matched one send: %s" % matched
        clock = run.report["analysis"]["clock"]
        if clock["hosts"] == 1 and not clock["simulated_hosts"]:
            assert clock["violations"] == 0, "clock violations on one clock: wrong matches (%s)" % clock
        expect_exact(run)
    elif mode == "bsend":
        assert "receive posted before the Bsend ended" in run.stdout, \
            "the receive was not posted during the Bsend: the probe cannot tell (%s)" % run.stdout
        # A buffered send never waits for its receiver: rank 1's 15 ms are not on the path.
        late_rank_on_path(run, 0, 40, absent=(1,), at_most_ms=3)
        expect_exact(run)
    elif mode in ("ssend", "rendezvous"):
        # The send waited for rank 1's receive, posted after 60 ms of computation.
        late_rank_on_path(run, 1, 50)
        lim = run.report["analysis"]["eager_limit"]
        assert lim["intra"] < (1 << 20), "1 MiB is not above the eager limit %s" % lim
        expect_exact(run)
    elif mode in ("issend_progress", "bsend_progress"):
        # Did the MPI move rank 1's message only once rank 1 was back in MPI (its MPI_Wait or
        # MPI_Buffer_detach)? Then rank 0's wait is rank 1's 60 ms, which must be on the path;
        # taken as rank 0's own MPI time, the path would say nothing on rank 1 mattered.
        if mpi_chose_to_wait(run, r"the receive waited ([0-9.]+) ms", 140):
            mpi0 = mpi_on(run).get(0, 0)
            assert mpi0 <= 10 * MS, "rank 0's wait (%.1f ms) is on the path as its own MPI time" % (mpi0 / MS)
        expect_exact(run)
    elif mode in ("send_1k", "send_1k_probe", "send_1k_posted", "rsend_1k_posted"):
        # Eager, but Open MPI's ob1 may hold a send above 256 bytes until the receiver's MPI
        # takes it (for send_1k_posted: the MPI_Wait of a receive posted long before; for
        # send_1k_probe: the MPI_Probe 30 ms before the receive). Waited: rank 1's 60 ms are on
        # the path; taken as eager, the wait was rank 0's own MPI time.
        lim = run.report["analysis"]["eager_limit"]
        if mpi_chose_to_wait(run, r"the send took ([0-9.]+) ms", 120, between_ok=True):
            mpi0 = mpi_on(run).get(0, 0)
            assert mpi0 <= 10 * MS, "rank 0's send (%.1f ms) is on the path as its own MPI time" % (mpi0 / MS)
            assert lim["inline_intra"] < 1000, "the 1000-byte send waited, but the inline limit is %s" % lim
            waited = float(re.search(r"the send took ([0-9.]+) ms", run.stdout).group(1))
            if mode == "send_1k_probe" and waited <= 70:
                # Released in the probe (60 ms, not the 90 the MPI_Recv would have taken): the
                # 30 ms rank 1 computed after the probe are off the path.
                c1 = compute_on(run).get(1, 0)
                assert c1 <= 75 * MS, "rank 1's computation on the path is %.1f ms: its 30 ms after the probe counted" % (c1 / MS)
        if "ob1 inline limit" in lim["source"]:
            assert lim["inline_intra"] == 256, lim
        expect_exact(run)
    elif mode == "ssend_progress":
        # Waited: for rank 1's progress into MPI_Wait (the receive was posted before the send),
        # so rank 1's 60 ms are on the path; taken as waiting for the posting call alone, the
        # send's wait would be rank 0's own MPI time.
        if mpi_chose_to_wait(run, r"the send took ([0-9.]+) ms", 120):
            mpi0 = mpi_on(run).get(0, 0)
            assert mpi0 <= 10 * MS, "rank 0's send (%.1f ms) is on the path as its own MPI time" % (mpi0 / MS)
        expect_exact(run)
    elif mode == "send_32k":
        # Rendezvous: the send waited for rank 1's receive, posted after 60 ms.
        if mpi_chose_to_wait(run, r"the send took ([0-9.]+) ms", 120):
            lim = run.report["analysis"]["eager_limit"]
            assert lim["intra"] < 32768, "the send waited, but the eager limit used is %s" % lim
        expect_exact(run)
    elif mode == "eager_small":
        # An eager send does not wait: rank 1's 60 ms stay off the path.
        late_rank_on_path(run, 0, 120, absent=(1,))
        expect_exact(run)
    elif mode == "eager_option":
        # The same 1 MiB send, with option eager=2M: the model follows the limit it is given.
        lim = run.report["analysis"]["eager_limit"]
        assert lim["intra"] == 2 << 20 and lim["source"] == "option eager=", lim
        late_rank_on_path(run, 0, 120, absent=(1,))
    elif mode == "threads":
        # Rank 0's thread B waited for rank 2 (80 ms); thread A's exchange with rank 1 is not on
        # the path. With one merged timeline per rank the path would follow thread A.
        late_rank_on_path(run, 2, 60, absent=(1,))
        t = run.report["analysis"]["threads_per_rank"]
        assert t and t[0] == 3 and all(n == 1 for n in t[1:]), "threads per rank: %s" % t
        assert "Threads: MPI called from several threads" in run.stdout
        # Thread B's 80 ms wait is a Late Sender: thread A's receive, later in rank 0's merged
        # timeline with an earlier send, is one B could never have taken (not Wrong Order).
        rows = wait_rows(run)
        ls = rows.get("Late Sender")
        assert ls and ls["lost_s"] >= 0.06, rows
        assert "Late Sender / Wrong Order" not in rows and not any(p.startswith("Misarrangement") for p in rows), rows
        expect_exact(run)
    elif mode == "thread_first_call":
        # The worker's 120 ms are on the path, rank 0's 80 ms are not; the report says the
        # worker's start is not known (rank 1's main thread called MPI after creating it).
        late_rank_on_path(run, 1, 100, absent=(0,))
        assert "wrong" not in run.stdout, run.stdout
        c = causes(run)
        assert c.get("thread_start") == 1, "thread_start: %s (expected 1)" % c
    elif mode == "grequest_thread":
        # Rank 0's MPI_Wait on the generalized request waited for its helper thread's
        # MPI_Grequest_complete, which waited for rank 1's 80 ms.
        late_rank_on_path(run, 1, 60)
        assert "wrong" not in run.stdout, run.stdout
        expect_exact(run)
    elif mode == "self_thread":
        # Rank 0's receive waited for its own second thread (80 ms of computation, then the
        # send); then 30 ms. Both computations are on the path; left as the receive's MPI time,
        # only the 30 ms would be. The reference must find the same path (cp_differential.py).
        late_rank_on_path(run, 0, 100)
        assert "wrong" not in run.stdout, run.stdout
        expect_exact(run)
    elif mode == "thread_race":
        # Whichever of rank 0's receives took rank 1's second message waited for its 60 ms (and
        # the 50 before the first): matched with the first message instead, it would have waited
        # for 50 ms only, and the other receive would end before its message was sent.
        late_rank_on_path(run, 1, 90)
        clock = run.report["analysis"]["clock"]
        if clock["hosts"] == 1 and not clock["simulated_hosts"]:
            assert clock["violations"] == 0, "clock-condition violations on one clock: %s" % clock
        c = causes(run)
        # Rank 0's two receives raced (both waiting at once); rank 1's sends are one thread's.
        assert c.get("thread_channel_order") == 2, "thread_channel_order: %s (expected 2)" % c
        assert "[thread_channel_order]" in run.stdout, "the text report does not list the cause"
    elif mode == "pause":
        # Later instances pair by sequence number: rank 0's last Allreduce waits for rank 2.
        late_rank_on_path(run, 2, 60)
        c = causes(run)
        assert c.get("paused") == 2, c
        # The 3 paused instances were recorded by ranks 2 and 3 only.
        assert c.get("collective_incomplete") == 6, c
        assert "collective_count_mismatch" not in c, c
    elif mode in ("free_eager", "leak"):
        # Rank 1's receive waited 60 ms for rank 0's send; no call waits for the send's (or the
        # leaked receive's) completion, so nothing is missing from the graph.
        late_rank_on_path(run, 0, 50)
        expect_exact(run)
    elif mode == "free_rendezvous":
        # The same path; the receive of a rendezvous message also depends on the sender's
        # completing call, which MPI_Request_free hid: one approximation, named.
        late_rank_on_path(run, 0, 50)
        c = causes(run)
        assert c == {"freed_while_active": 1}, c
        assert "[freed_while_active]" in run.stdout, "the text report does not list the cause"
    elif mode in ("intercomm", "intercomm_coll"):
        # The message crosses the groups: rank 0 waited for rank 1's 60 ms.
        late_rank_on_path(run, 1, 50)
        if mode == "intercomm":
            # Its one message, 4 bytes from world rank 1 to world rank 0, is in the matrix.
            rows = open(os.path.join(run.dir, "comm_p2p.csv")).read().split()
            assert "1,0,4,1" in rows, "comm_p2p.csv: %s" % rows
        else:
            # The odd ranks' intercommunicator barrier waited for rank 0, late by 100 ms: with
            # the barrier left local, the path would stay on an odd rank's MPI time.
            late_rank_on_path(run, 0, 80)
        # The creation and the barrier are instances over both groups: nothing approximated.
        c = causes(run)
        assert c == {}, c
    elif mode == "intercomm_create":
        # Rank 0's creation waited for rank 3 (120 ms late); left local, the path would stay on
        # rank 0's MPI_Intercomm_create.
        late_rank_on_path(run, 3, 100)
        c = causes(run)
        assert c == {}, c
    elif mode in ("pscw", "pscw_test"):
        # Rule 10: rank 0's MPI_Win_start waited for rank 1's post (after 100 ms), and rank 1's
        # MPI_Win_wait (or MPI_Win_test loop) for rank 0's complete (after 60 ms more); then
        # rank 1 computed 30 ms. Left local, rank 0's 60 ms would be off the path and rank 1's
        # wait would stay its MPI time.
        late_rank_on_path(run, 0, 50)
        late_rank_on_path(run, 1, 110)
        assert "wrong" not in run.stdout, run.stdout
        # Rank 1's MPI time on the path between its 100 ms and its 30 ms: the post and the end
        # of the wait, not the wait for rank 0's 60 ms.
        segs = load_path(run)
        c1 = [s for s in segs if s["rank"] == 1 and s["kind"] == "compute"]
        first = next(s for s in c1 if s["end"] - s["begin"] >= 90e6)
        last = next(s for s in c1 if s["begin"] > first["end"] and s["end"] - s["begin"] >= 25e6)
        mpi1 = sum(s["end"] - s["begin"] for s in segs if s["rank"] == 1 and s["kind"] == "mpi" and
                   s["begin"] >= first["end"] and s["end"] <= last["begin"]) * 1e-9
        assert mpi1 <= 20 * MS, "rank 1's wait for the complete (%.1f ms) is on the path as MPI time" % (mpi1 / MS)
        clock = run.report["analysis"]["clock"]
        if clock["hosts"] == 1 and not clock["simulated_hosts"]:
            assert clock["violations"] == 0, "clock-condition violations on one clock: %s" % clock
        c = causes(run)
        assert c == {}, c
        # Scalasca's names for the two waits, with the built lateness: 100 ms at rank 0's
        # MPI_Win_start (rank 2's too: both origins waited for the post) and 60 ms at rank 1's
        # MPI_Win_wait (or from its first MPI_Win_test).
        ws = wait_rows(run)
        lp, ew = ws.get("Late Post"), ws.get("Early Wait")
        assert lp and lp["instances"] == 2 and 0.18 <= lp["lost_s"] <= 0.23 and lp["on_path_s"] >= 0.09, lp
        assert ew and ew["instances"] == 1 and 0.05 <= ew["lost_s"] <= 0.08 and ew["on_path_s"] >= 0.05, ew
        assert "Late Sender" not in ws or ws["Late Sender"]["lost_s"] < 0.01, ws.get("Late Sender")
        # The program sent no message: the modelled post and complete messages are not traffic.
        rows = open(os.path.join(run.dir, "comm_p2p.csv")).read().split()[1:]
        assert rows == [], "comm_p2p.csv lists the window's synchronisation: %s" % rows
        if mode == "pscw_test":
            # The 60 ms MPI_Win_test loop merges like a Test loop (none merged before; under the
            # CI's load a loop of 47 calls merged 46, each call yielding the CPU).
            tr = run.report["trace"]
            assert tr["polls_merged"] >= 5, tr
    elif mode == "pscw_subcomm":
        # The group names ranks of the window's communicator, recorded as world ranks: read as
        # ranks of the world (or the first window's tags), the messages would not match.
        late_rank_on_path(run, 1, 50)
        late_rank_on_path(run, 3, 110)
        assert "wrong" not in run.stdout, run.stdout
        clock = run.report["analysis"]["clock"]
        if clock["hosts"] == 1 and not clock["simulated_hosts"]:
            assert clock["violations"] == 0, "clock-condition violations on one clock: %s" % clock
        assert causes(run) == {}, causes(run)
    elif mode == "pscw_pair":
        # Rank 0's MPI_Win_start waited three times for rank 1's 50 ms: on the path; and the
        # window's messages are no close send-receive pair (rank 0's post and start follow each
        # other at once, each with one message to rank 1).
        late_rank_on_path(run, 1, 120)
        assert "wrong" not in run.stdout, run.stdout
        ws = wait_rows(run)
        assert "Close Send-Recv" not in ws, ws.get("Close Send-Recv")
        assert ws.get("Late Post") and ws["Late Post"]["lost_s"] >= 0.12, ws.get("Late Post")
        assert causes(run) == {}, causes(run)
    elif mode == "pscw_progress":
        # Rank 0's MPI_Win_complete either waited for rank 1's MPI_Win_wait (MPICH: rank 1's
        # 60 ms on the path, rank 0's wait not) or returned at once (Open MPI: rank 0's 120 ms
        # only). Modelled as a send that never waits, MPICH's 60 ms would stay rank 0's MPI time.
        waited = mpi_chose_to_wait(run, r"complete took ([0-9.]+) ms", 100)
        mpi0 = mpi_on(run).get(0, 0)
        assert mpi0 <= 20 * MS, "rank 0's MPI time on the path is %.1f ms" % (mpi0 / MS)
        ws = wait_rows(run)
        if waited:
            wp = ws.get("Wait for Progress")
            assert wp and wp["instances"] == 1 and wp["on_path_s"] >= 0.04, wp
        else:
            assert "Wait for Progress" not in ws, ws.get("Wait for Progress")
        assert "wrong" not in run.stdout, run.stdout
        assert causes(run) == {}, causes(run)
    elif mode == "intercomm_rooted":
        # Rank 0's reduction (MPI_ROOT) waited for rank 3 (80 ms), whose broadcast waited for
        # rank 2's (MPI_ROOT, 80 ms).
        late_rank_on_path(run, 3, 60)
        late_rank_on_path(run, 2, 60)
        assert "wrong" not in run.stdout, run.stdout
        c = causes(run)
        assert c == {}, c
    elif mode == "zero_count":
        # Rank 3 came last to every call (9 x 30 ms). A model that makes the calls wait for
        # every member finds, on one clock, calls that ended before the member they waited for
        # began, and "repairs" the clock by shifting them: rank 0's barrier then took the path
        # (~270 ms; its own completion can take a few time slices on a loaded machine).
        last_rank_came_last_unsynchronised(run, 220, 60)
    elif mode == "split_io":
        # Rank 3 began last (90 ms). Open MPI's write_at_all_begin returns at once: modelled as
        # waiting for every member, the calls "ended before" rank 3 began and the clock was
        # "repaired" by up to 90 ms, putting rank 0's MPI_File_close on the path instead.
        last_rank_came_last_unsynchronised(run, 70, 40)
    else:
        raise AssertionError("no known answer for mode %s" % mode)
