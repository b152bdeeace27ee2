#!/usr/bin/env python3
"""Known answers for the ground-truth simulator (simulate.py): small programs whose critical
path is obvious by hand. Each would be predicted differently if the simulator modelled the MPI
construct wrongly (e.g. a buffered send waiting, a neighbourhood collective waiting for every
member, a polling loop not counted as a wait)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simulate  # noqa: E402


def predict(text, margin=4.0):
    return simulate.predict(simulate.Program(text), margin)


class KnownAnswers(unittest.TestCase):
    def test_late_sender_is_on_the_path(self):
        self.assertEqual(predict("""ranks 2
0 compute 1 50
0 send std 0 1 1 8
1 compute 2 10
1 recv 0 0 1 8
1 compute 3 20
"""), [(0, 1), (1, 3)])

    def test_buffered_and_eager_sends_do_not_wait_for_a_late_receiver(self):
        for mode in ("buf", "std"):
            self.assertEqual(predict("""ranks 2
0 compute 1 10
0 send %s 0 1 1 8
0 compute 2 30
1 compute 3 50
1 recv 0 0 1 8
""" % mode), [(1, 3)], mode)

    def test_synchronous_send_waits_for_a_late_receiver(self):
        self.assertEqual(predict("""ranks 2
0 compute 1 10
0 send sync 0 1 1 8
0 compute 2 30
1 compute 3 50
1 recv 0 0 1 8
"""), [(1, 3), (0, 2)])

    def test_synchronous_send_to_a_computing_receiver_is_undecided(self):
        # The receive was posted early, the receiver computes before its MPI_Wait: whether the
        # send completes at the post or only when the receiver enters MPI again depends on the
        # MPI library, and here it decides the path.
        with self.assertRaises(simulate.Undecided):
            predict("""ranks 2
1 irecv 0 0 1 8 0
1 compute 1 50
1 wait 0
0 compute 2 10
0 send sync 0 1 1 8
0 compute 3 30
""")

    def test_neighbourhood_collective_waits_for_in_neighbours_only(self):
        # A 1-D chain 0-1-2-3: rank 3 is late; rank 0 does not wait for it and finishes first.
        self.assertEqual(predict("""ranks 4
comm 3 cart 0 0
0 compute 1 10
1 compute 2 10
2 compute 3 10
3 compute 4 60
0 coll nallgather 3 0
1 coll nallgather 3 0
2 coll nallgather 3 0
3 coll nallgather 3 0
0 compute 5 40
"""), [(3, 4)])

    def test_rooted_collectives(self):
        # Broadcast: the late root holds everybody; reduce: nobody waits for the late non-root but
        # the root.
        self.assertEqual(predict("""ranks 3
0 compute 1 50
1 compute 2 10
2 compute 3 10
0 coll bcast 0 0
1 coll bcast 0 0
2 coll bcast 0 0
1 compute 4 20
"""), [(0, 1), (1, 4)])
        self.assertEqual(predict("""ranks 3
0 compute 1 10
1 compute 2 10
2 compute 3 50
0 coll reduce 0 0
1 coll reduce 0 0
2 coll reduce 0 0
0 compute 4 20
"""), [(2, 3), (0, 4)])

    def test_non_root_of_a_reduction_may_wait_for_its_subtree(self):
        # Rank 1 is no root; a tree reduction may make it wait for late rank 2: undecided.
        with self.assertRaises(simulate.Undecided):
            predict("""ranks 3
0 compute 1 10
1 compute 2 10
2 compute 3 50
0 coll reduce 0 0
1 coll reduce 0 0
2 coll reduce 0 0
1 compute 4 20
""")

    def test_broadcast_tree_may_pass_through_a_late_member(self):
        # Rank 2 may get the data through late rank 1 (a broadcast tree): undecided.
        with self.assertRaises(simulate.Undecided):
            predict("""ranks 3
0 compute 1 10
1 compute 2 50
2 compute 3 10
0 coll bcast 0 0
1 coll bcast 0 0
2 coll bcast 0 0
2 compute 4 20
""")

    def test_polling_loop_waits_for_the_late_sender(self):
        # The receiver polls from 10 ms on; the sender sends at 50 ms: the receiver's own
        # computation before the loop is not on the path, the sender's is.
        self.assertEqual(predict("""ranks 2
1 irecv 0 0 1 8 0
1 compute 1 10
1 testloop 300 0
1 compute 2 20
0 compute 3 50
0 send std 0 1 1 8
"""), [(0, 3), (1, 2)])
        self.assertEqual(predict("""ranks 2
1 compute 1 10
1 probeloop 300 0 any 1 8
1 compute 2 20
0 compute 3 50
0 send std 0 1 1 8
"""), [(0, 3), (1, 2)])

    def test_wildcard_takes_the_earliest_message(self):
        prog = simulate.Program("""ranks 3
1 compute 1 10
1 send std 0 0 1 8
2 compute 2 40
2 send std 0 0 1 8
0 recv 0 any 1 8
0 compute 3 5
0 recv 0 any 1 8
""")
        sim = simulate.Sim(prog, "lo")
        sim.run()
        first = [m for m in sim.msgs if m.recv is not None and m.recv.order == 0]
        self.assertEqual(first[0].src, 1)
        self.assertEqual(simulate.predict(prog), [(2, 2)])

    def test_wildcard_race_is_undecided(self):
        with self.assertRaises(simulate.Undecided):
            predict("""ranks 3
1 compute 1 10
1 send std 0 0 1 8
2 compute 2 11
2 send std 0 0 1 8
0 recv 0 any 1 8
0 recv 0 any 1 8
""")

    def test_messages_on_one_channel_match_in_order(self):
        # Three messages from 0 to 1 on one tag: the third receive waits for the late third send.
        self.assertEqual(predict("""ranks 2
0 send std 0 1 1 8
0 send std 0 1 1 8
0 compute 1 30
0 send std 0 1 1 8
1 compute 2 5
1 recv 0 0 1 8
1 recv 0 0 any 8
1 recv 0 0 1 8
1 compute 3 10
"""), [(0, 1), (1, 3)])

    def test_subcommunicator_collective_waits_for_its_members_only(self):
        self.assertEqual(predict("""ranks 4
comm 1 split 0 0 0 1 1
0 compute 1 10
1 compute 2 30
2 compute 3 60
3 compute 4 10
0 coll barrier 1 0
1 coll barrier 1 0
2 coll barrier 1 0
3 coll barrier 1 0
0 compute 5 40
"""), [(1, 2), (0, 5)])

    def test_receive_of_a_nonblocking_synchronous_send_may_wait_for_its_sender(self):
        # MPICH 4.0 delivered the message only when rank 1 entered MPI_Wait after phase 1, Open
        # MPI at once: which of rank 0's phase 3 and rank 1's phase 1 ends last depends on it.
        text = """ranks 2
0 irecv 0 1 20 1024 0
1 isend sync 0 0 20 8 0
1 compute 1 30
0 compute 2 5
0 wait 0
0 compute 3 20
1 wait 0
"""
        with self.assertRaises(simulate.Undecided):
            predict(text)
        # With the sender back in MPI before the receiver waits, both agree.
        self.assertEqual(predict(text.replace("1 compute 1 30", "1 compute 1 0.5")), [(0, 2), (0, 3)])

    def test_a_rank_that_starts_late_carries_its_phase_onto_the_path(self):
        # Rank 1's phase is 6 ms shorter, but it left the starting barrier 10 ms later (what a
        # check sets from a run in which the scheduler held it back): its phase ends last.
        text = """ranks 2
0 compute 1 30
1 compute 2 24
0 coll barrier 0 0
1 coll barrier 0 0
0 compute 3 10
"""
        self.assertEqual(predict(text), [(0, 1), (0, 3)])
        prog = simulate.Program(text)
        prog.start_ms = {0: 0.0, 1: 10.0}
        self.assertEqual(simulate.predict(prog, 4.0), [(1, 2), (0, 3)])


if __name__ == "__main__":
    unittest.main()
