// Root causes (analysis/wait_states, CauseWalker): the interval of work that delayed a partner
// call runs back across the calls that did not wait, on the partner's thread, and a run of such
// calls is walked once however many of them were partners (a point-to-point call others waited
// for is crossed too, a collective is not); long-term is only time the partner's thread was
// waiting itself.
#include <gtest/gtest.h>

#include "replay_fixture.h"
#include "wait_states.h"

using namespace cpath_test;

namespace {

// The rank's own waits: (waiting call, wait start), as find_wait_states would give them.
ThreadWaits own_waits(const Model& m, const std::vector<std::pair<uint32_t, int64_t>>& waits, const std::vector<CausedWait>& caused) {
  std::vector<WaitInstance> inst;
  for (const auto& [e, from] : waits) {
    WaitInstance w;
    w.event = e;
    w.wait_from = from;
    w.partner_begin = m.tl.ev[e].end;
    inst.push_back(w);
  }
  return ThreadWaits(m.tl, m.ops, inst, caused);
}

std::vector<DelayCost> costs(const Model& m, const std::vector<CausedWait>& caused,
                             const std::vector<std::pair<uint32_t, int64_t>>& waits = {}) {
  const ThreadWaits w = own_waits(m, waits, caused);
  std::vector<DelayCost> out;
  for_each_delay_cost(m.tl, w, caused, [&](const DelayCost& d) { out.push_back(d); });
  return out;
}

}  // namespace

TEST(WaitStatesCause, IntervalSpansANonBlockingPost) {
  TraceBuilder b(0, 4);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 100, 110);
  b.p2p(kCall_MPI_Iallreduce, 300110, 300120, -1, -1, 8, 0xA0);  // 300 ms of work before it
  b.complete(kCall_MPI_Wait, 300420, 300500, {TraceBuilder::done(0xA0)});  // 0.3 ms after it
  b.call(kCall_MPI_Barrier, 300600, 300700);
  b.finalize(400000);
  Model m(std::move(b));
  const uint32_t wait = m.ev(kCall_MPI_Wait), barrier = m.ev(kCall_MPI_Barrier, 0), second = m.ev(kCall_MPI_Barrier, 1);
  // Three ranks waited 300 ms for the MPI_Wait (rule 4's progress call); one waited 50 us for
  // the second barrier, after the MPI_Wait, which waited 60 ns itself: only the 100 us before
  // the barrier count, and of the rest only those 60 ns were passed on.
  const auto d = costs(m, {{300000, wait, 1}, {300000, wait, 2}, {300000, wait, 3}, {50000, second, 1}},
                       {{barrier, 100}, {wait, 300440}});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].event, wait);
  EXPECT_EQ(d[0].start, barrier);
  EXPECT_EQ(d[0].interval, 300000 + 300);
  EXPECT_EQ(d[0].short_ns, 3 * 300000);  // all short-term: the rank was working, not waiting
  EXPECT_EQ(d[0].long_ns, 0);
  EXPECT_EQ(d[1].start, wait);
  EXPECT_EQ(d[1].interval, 100);
  EXPECT_EQ(d[1].short_ns, 100);
  EXPECT_EQ(d[1].long_ns, 60);
}

// The probe's case: rank 0 computes 90 ms, makes a blocking call that returned at once (an
// eager MPI_Send, an MPI_Test or MPI_Iprobe finding nothing), computes 1 ms, and the others
// wait 91 ms for its MPI_Allreduce. Its kind could wait, it did not: the interval runs back to
// the barrier, all of it short-term. Were it taken as a wait, 90 ms would be "propagated".
TEST(WaitStatesCause, BlockingCallThatDidNotWaitIsCrossed) {
  for (const unsigned call : {kCall_MPI_Send, kCall_MPI_Test, kCall_MPI_Iprobe}) {
    TraceBuilder b(0, 4);
    b.init(0, 10);
    b.call(kCall_MPI_Barrier, 100, 110);
    if (call == kCall_MPI_Send)
      b.p2p(call, 90110, 90120, 1, 5, 8);
    else
      b.call(call, 90110, 90120);
    b.call(kCall_MPI_Allreduce, 91120, 91200);
    b.finalize(100000);
    Model m(std::move(b));
    const uint32_t barrier = m.ev(kCall_MPI_Barrier), allreduce = m.ev(kCall_MPI_Allreduce);
    // The barrier waited for another rank; the call between did not.
    const auto d = costs(m, {{91000, allreduce, 1}, {91000, allreduce, 2}, {91000, allreduce, 3}}, {{barrier, 100}});
    ASSERT_EQ(d.size(), 1u) << call;
    EXPECT_EQ(d[0].start, barrier) << call;
    EXPECT_EQ(d[0].interval, 91000) << call;
    EXPECT_EQ(d[0].short_ns, 3 * 91000) << call;
    EXPECT_EQ(d[0].long_ns, 0) << call;
    // Rank 0 came last to the barrier: it did not wait there, the others waited for it. The
    // group left together, so the interval still starts there, not at MPI_Init.
    const auto e = costs(m, {{50, barrier, 1}, {91000, allreduce, 1}, {91000, allreduce, 2}, {91000, allreduce, 3}});
    ASSERT_EQ(e.size(), 2u) << call;
    EXPECT_EQ(e[1].start, barrier) << call;
    EXPECT_EQ(e[1].interval, 91000) << call;
    EXPECT_EQ(e[1].long_ns, 0) << call;
  }
}

// Long-term is time the delaying thread spent waiting: rank 0 waits 40 us in an MPI_Recv,
// computes 10 us and sends; its receiver waited 60 us for the send. 10 us short-term, the 40 us
// the MPI_Recv waited (to its end) long-term, and the 10 us before the MPI_Recv, work of an
// earlier interval, neither. A call that waited but whose wait the window does not reach adds
// nothing.
TEST(WaitStatesCause, LongTermIsTheThreadsOwnWaiting) {
  TraceBuilder b(0, 3);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 100, 110);
  b.p2p(kCall_MPI_Recv, 120, 160, 2, 9, 8);  // waited from its begin to its end
  b.p2p(kCall_MPI_Send, 170, 175, 1, 9, 8);
  b.finalize(1000);
  Model m(std::move(b));
  const uint32_t barrier = m.ev(kCall_MPI_Barrier), recv = m.ev(kCall_MPI_Recv), send = m.ev(kCall_MPI_Send);
  // The send began at 170: the receiver waited from 110.
  auto d = costs(m, {{60, send, 1}}, {{barrier, 100}, {recv, 120}});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].start, recv);
  EXPECT_EQ(d[0].interval, 10);
  EXPECT_EQ(d[0].short_ns, 10);
  EXPECT_EQ(d[0].long_ns, 40);
  // The MPI_Recv waited only from 150 on (rule 5's wait start is where it was held).
  d = costs(m, {{60, send, 1}}, {{barrier, 100}, {recv, 150}});
  EXPECT_EQ(d[0].long_ns, 10);
  // A wait of 15 ns is all short-term.
  d = costs(m, {{15, send, 1}}, {{barrier, 100}, {recv, 120}});
  EXPECT_EQ(d[0].short_ns, 10);
  EXPECT_EQ(d[0].long_ns, 5);
}

TEST(WaitStatesCause, RunOfPostsAndABlockingCallBetween) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 20, 30);
  // 2000 MPI_Isend posts, 7 ns of work before each; a blocking MPI_Recv after the 1000th.
  int64_t t = 30;
  for (int k = 0; k < 2000; ++k) {
    b.p2p(kCall_MPI_Isend, t + 7, t + 10, 1, k, 8, 0x1000 + static_cast<uint64_t>(k));
    t += 10;
    if (k == 999) {
      b.p2p(kCall_MPI_Recv, t + 7, t + 10, 1, 9, 8);
      t += 10;
    }
  }
  b.finalize(t + 100);
  Model m(std::move(b));
  std::vector<CausedWait> caused;
  // Each post some other worker's partner.
  for (int k = 0; k < 2000; ++k) caused.push_back({1, m.ev(kCall_MPI_Isend, k), 2 + k});
  const uint32_t barrier = m.ev(kCall_MPI_Barrier), recv = m.ev(kCall_MPI_Recv);
  // The barrier and the MPI_Recv waited for their partners.
  auto d = costs(m, caused, {{barrier, 20}, {recv, m.tl.ev[recv].begin}});
  ASSERT_EQ(d.size(), 2000u);
  for (int k = 0; k < 2000; ++k) {
    // From the barrier up to the 1000th post, from the MPI_Recv after it.
    const uint32_t start = k < 1000 ? barrier : recv;
    const int64_t n = k < 1000 ? k + 1 : k - 999;
    ASSERT_EQ(d[static_cast<size_t>(k)].start, start) << k;
    ASSERT_EQ(d[static_cast<size_t>(k)].interval, 7 * n) << k;
  }
  // The MPI_Recv found its message there and did not wait: one run from the barrier, with the
  // 7 ns before the MPI_Recv in it.
  d = costs(m, caused, {{barrier, 20}});
  ASSERT_EQ(d.size(), 2000u);
  for (int k = 0; k < 2000; ++k) {
    const int64_t n = k < 1000 ? k + 1 : k + 2;
    ASSERT_EQ(d[static_cast<size_t>(k)].start, barrier) << k;
    ASSERT_EQ(d[static_cast<size_t>(k)].interval, 7 * n) << k;
  }
  // One worker waited for every post: each post met it, its interval is the 7 ns before it.
  for (CausedWait& c : caused) c.waiting_rank = 1;
  d = costs(m, caused, {{barrier, 20}});
  for (int k = 1; k < 2000; ++k) {
    ASSERT_EQ(d[static_cast<size_t>(k)].start, m.ev(kCall_MPI_Isend, k - 1)) << k;
    ASSERT_EQ(d[static_cast<size_t>(k)].interval, k == 1000 ? 14 : 7) << k;
  }
}

// A ping-pong whose slow side never waits: rank 0 computes 10 us per round, its MPI_Recv finds
// rank 1's message there, rank 1 waits 9 us for each MPI_Send. The interval of a send is the
// round since the previous send rank 1 waited for, not everything since the barrier.
TEST(WaitStatesCause, PingPongSlowSideThatNeverWaits) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 100, 110);
  int64_t t = 110;
  for (int k = 0; k < 5; ++k) {
    b.p2p(kCall_MPI_Send, t + 10000, t + 10010, 1, 1, 8);
    b.p2p(kCall_MPI_Recv, t + 10020, t + 10030, 1, 1, 8);
    t += 10030;
  }
  b.finalize(t + 100);
  Model m(std::move(b));
  std::vector<CausedWait> caused;
  for (int k = 0; k < 5; ++k) caused.push_back({9000, m.ev(kCall_MPI_Send, k), 1});
  const auto d = costs(m, caused, {{m.ev(kCall_MPI_Barrier), 100}});
  ASSERT_EQ(d.size(), 5u);
  for (int k = 1; k < 5; ++k) {
    EXPECT_EQ(d[static_cast<size_t>(k)].start, m.ev(kCall_MPI_Send, k - 1)) << k;
    EXPECT_EQ(d[static_cast<size_t>(k)].interval, 10000 + 10) << k;
    EXPECT_EQ(d[static_cast<size_t>(k)].short_ns, 9000) << k;
    EXPECT_EQ(d[static_cast<size_t>(k)].long_ns, 0) << k;
  }
}
