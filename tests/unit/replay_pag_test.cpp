// PAG edges (replay/pag.h) on hand-built timelines with hand-set partners: rule 2 (the latest
// candidate that began before the end; ties to the own begin, then the lower rank), the
// second candidate of a rendezvous receive, MPI_Init's partner, and rule 5's wait start
// after polling loops (Test and Iprobe), with its controls.
#include <gtest/gtest.h>

#include "pag.h"
#include "replay_fixture.h"

using namespace cpath_test;

namespace {

struct Pag {
  Model m;
  PartnerTable p;
  explicit Pag(TraceBuilder&& b) : m(std::move(b)), p(m.ops.ops.size()) {}
  PagTarget edge(uint32_t ev, int me = 0) const { return RankPag(m.tl, m.ops, p, me).end_edge(ev); }
};

TraceBuilder one_recv() {
  TraceBuilder b(0, 3);
  b.init(0, 1);
  b.p2p(kCall_MPI_Recv, 10, 100, 1, 5);
  return b;
}

// Irecv at 10, then unsuccessful Tests at 20, 22, ... (1 ns each), success at 90.
TraceBuilder polling_loop(int first_poll, int step, uint32_t poll_thread = 0) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 5, 0, 0xA0);
  for (int t = first_poll; t < 90; t += step) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xA0}, poll_thread);
  b.complete(kCall_MPI_Test, 90, 91, {TraceBuilder::done(0xA0, 1, 5)}, {0xA0});
  return b;
}

uint32_t last_test(const Pag& g) {
  uint32_t last = kNoEvent;
  for (uint32_t i = 0; i < g.m.tl.ev.size(); ++i)
    if (g.m.tl.ev[i].e.call == kCall_MPI_Test && g.m.tl.ev[i].e.list_count) last = i;
  return last;
}

}  // namespace

TEST(ReplayPag, LatestCandidateBeforeTheEnd) {
  for (const auto& [begin, wins] : std::vector<std::pair<int64_t, bool>>{{60, true}, {5, false}, {10, false}, {100, false}, {99, true}}) {
    Pag g(one_recv());
    const uint32_t recv = g.m.ev(kCall_MPI_Recv);
    g.p.of_op[g.m.op_posted_by(recv)] = Partner{1, 4, begin};
    const PagTarget t = g.edge(recv);
    SCOPED_TRACE("partner begin " + std::to_string(begin));
    if (wins) {
      EXPECT_EQ(t.rank, 1);
      EXPECT_EQ(t.event, 4u);
      EXPECT_EQ(t.begin, begin);
    } else {
      EXPECT_EQ(t.rank, 0) << "own begin: the partner was not later, or began after the call ended";
      EXPECT_EQ(t.event, recv);
      EXPECT_EQ(t.begin, 10);
    }
  }
}

TEST(ReplayPag, TiesGoToTheLowerRank) {
  TraceBuilder b(0, 3);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 5, 6, 2, 5, 0, 0xA0);
  b.p2p(kCall_MPI_Irecv, 7, 8, 1, 5, 0, 0xB0);
  b.complete(kCall_MPI_Waitall, 10, 100, {TraceBuilder::done(0xA0, 2, 5), TraceBuilder::done(0xB0, 1, 5)});
  Pag g(std::move(b));
  g.p.of_op[0] = Partner{2, 3, 60};
  g.p.of_op[1] = Partner{1, 9, 60};
  const PagTarget t = g.edge(g.m.ev(kCall_MPI_Waitall));
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.event, 9u);
}

TEST(ReplayPag, RendezvousReceiveAlsoWaitsForTheSendersCompletion) {
  Pag g(one_recv());
  const uint32_t recv = g.m.ev(kCall_MPI_Recv), op = g.m.op_posted_by(recv);
  g.p.of_op[op] = Partner{1, 3, 20};             // the Isend
  g.p.extra.push_back({op, Partner{1, 9, 70}});  // the sender's Wait
  g.p.sort_extra();
  EXPECT_EQ(g.edge(recv).event, 9u);
  g.p.extra[0].second.begin = 120;  // the sender's Wait began after the receive ended
  EXPECT_EQ(g.edge(recv).event, 3u);
}

TEST(ReplayPag, InitWaitsForTheLatestInit) {
  TraceBuilder b(0, 2);
  b.init(0, 50);
  Pag g(std::move(b));
  g.p.init = Partner{1, 0, 30};
  const PagTarget t = g.edge(g.m.ev(kCall_MPI_Init));
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.begin, 30);
}

TEST(ReplayPag, PollingLoopWaitsFromItsFirstPoll) {
  Pag g(polling_loop(20, 2));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 60};  // the sender began at 60, while rank 0 polled
  const PagTarget t = g.edge(c);
  EXPECT_EQ(t.rank, 1) << "without rule 5 the own begin (90) would win";
  EXPECT_EQ(wait_start(g.m.tl, g.m.ops, 0, c, 60), 20);
}

TEST(ReplayPag, ComputationLongerThanTheLatenessStaysComputation) {
  // One unsuccessful Test at 20, then 69 ns of computation; the sender began at 40: it was
  // 20 ns late for the poll, the receiver computed 69 ns.
  Pag g(polling_loop(20, 100));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 40};
  EXPECT_EQ(wait_start(g.m.tl, g.m.ops, 0, c, 40), 90);
  EXPECT_EQ(g.edge(c).rank, 0);
  // The same with the sender 75 ns late for that poll: now the receiver waited.
  g.p.of_op[0] = Partner{1, 7, 89};
  EXPECT_EQ(g.edge(c).rank, 1);
}

TEST(ReplayPag, PollsAfterThePartnerBeganDoNotStartTheWait) {
  Pag g(polling_loop(70, 2));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 60};  // the partner was there before the first poll
  EXPECT_EQ(g.edge(c).rank, 0);
}

TEST(ReplayPag, PollsOfAnotherThreadDoNotCount) {
  Pag g(polling_loop(20, 2, 1));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 60};
  EXPECT_EQ(g.edge(c).rank, 0);
}

TEST(ReplayPag, IprobeLoopWaitsFromItsFirstPoll) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  for (int t = 20; t < 90; t += 2) b.p2p(kCall_MPI_Iprobe, t, t + 1, 1, 5).flag = 0;
  b.p2p(kCall_MPI_Iprobe, 90, 91, 1, 5).flag = 1;
  b.p2p(kCall_MPI_Recv, 92, 93, 1, 5);
  Pag g(std::move(b));
  const uint32_t found = g.m.ev(kCall_MPI_Iprobe, 35);
  const uint32_t peek = g.m.op_posted_by(found), recv = g.m.op_posted_by(g.m.ev(kCall_MPI_Recv));
  ASSERT_EQ(g.m.ops.ops[peek].kind, OpKind::Peek);
  g.p.of_op[peek] = Partner{1, 7, 60};
  g.p.of_op[recv] = Partner{1, 7, 60};
  EXPECT_EQ(g.edge(found).rank, 1);
  EXPECT_EQ(g.edge(g.m.ev(kCall_MPI_Recv)).rank, 0) << "the message was there when the receive began";
}

// A tight loop: Tests of 1 ns at 20, 30, 40, 50 with 9 ns of work between, the message found
// by the Test at 60; the sender began at 55. By hand: from the first poll's end (21) to the
// completing Test (60) the thread computed 39 - 3 (the Tests at 30, 40, 50) = 36 ns, more than
// the lateness 55 - 20 = 35: the old rule (all work since the first poll) called it
// computation, only because the last chunk overshot 55 by 5 ns and the polls took 3. After the
// last poll before 55 (the one at 50) the thread computed 9 ns <= 35: a wait from 20.
TEST(ReplayPag, TightLoopWhoseLastChunkOvershootsIsAWait) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 5, 0, 0xA0);
  for (int t = 20; t <= 50; t += 10) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xA0});
  b.complete(kCall_MPI_Test, 60, 61, {TraceBuilder::done(0xA0, 1, 5)}, {0xA0});
  Pag g(std::move(b));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 55};
  uint32_t p = kNoEvent, q = kNoEvent;
  EXPECT_EQ(wait_start(g.m.tl, g.m.ops, 0, c, 55, &p, &q), 20);
  EXPECT_EQ(p, g.m.ev(kCall_MPI_Test, 0));
  EXPECT_EQ(q, g.m.ev(kCall_MPI_Test, 3)) << "the last poll that began before the partner";
  EXPECT_EQ(g.edge(c).rank, 1);
}

// The control: the same loop, but after the poll at 50 the thread works until 100 (49 ns
// after 51, more than the lateness 35): real work after the partner came stays computation.
// And a poll at 60 that began after the partner (the message in transit) is not q: from the
// poll at 50 to the completing Test at 70 the thread computed 19 - 1 = 18 <= 35, a wait.
TEST(ReplayPag, LongWorkAfterThePartnerCameStaysComputation) {
  for (const auto& [done_at, extra_poll, waits] : std::vector<std::tuple<int, bool, bool>>{{100, false, false}, {70, true, true}}) {
    TraceBuilder b(0, 2);
    b.init(0, 1);
    b.p2p(kCall_MPI_Irecv, 10, 11, 1, 5, 0, 0xA0);
    for (int t = 20; t <= 50; t += 10) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xA0});
    if (extra_poll) b.complete(kCall_MPI_Test, 60, 61, {}, {0xA0});
    b.complete(kCall_MPI_Test, done_at, done_at + 1, {TraceBuilder::done(0xA0, 1, 5)}, {0xA0});
    Pag g(std::move(b));
    const uint32_t c = last_test(g);
    g.p.of_op[0] = Partner{1, 7, 55};
    SCOPED_TRACE("completed at " + std::to_string(done_at));
    EXPECT_EQ(wait_start(g.m.tl, g.m.ops, 0, c, 55), waits ? 20 : done_at);
    EXPECT_EQ(g.edge(c).rank, waits ? 1 : 0);
  }
}

// Probe loops find q by their key: Iprobes (1 ns) on tag 5 at 20, 30, 40, and one on tag 6 at
// 50 (another key: not a poll of this loop); found at 60, the sender began at 55. By hand: q
// is the Iprobe at 40, the work from 41 to 60 is 19 - 1 = 18 <= 35 = 55 - 20: a wait from 20.
// With the sender at 45 (lateness 25) still 18 <= 25; the old rule's 39 - 3 = 36 (21..60 less
// the three calls at 30, 40, 50) exceeded both.
TEST(ReplayPag, IprobeLoopLastPollIsOnItsKey) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  for (int t = 20; t <= 40; t += 10) b.p2p(kCall_MPI_Iprobe, t, t + 1, 1, 5).flag = 0;
  b.p2p(kCall_MPI_Iprobe, 50, 51, 1, 6).flag = 0;
  b.p2p(kCall_MPI_Iprobe, 60, 61, 1, 5).flag = 1;
  Pag g(std::move(b));
  const uint32_t found = g.m.ev(kCall_MPI_Iprobe, 4);
  const uint32_t peek = g.m.op_posted_by(found);
  ASSERT_EQ(g.m.ops.ops[peek].kind, OpKind::Peek);
  uint32_t q = kNoEvent;
  EXPECT_EQ(wait_start(g.m.tl, g.m.ops, peek, found, 55, nullptr, &q), 20);
  EXPECT_EQ(q, g.m.ev(kCall_MPI_Iprobe, 2));
  EXPECT_EQ(wait_start(g.m.tl, g.m.ops, peek, found, 45, nullptr, &q), 20);
  EXPECT_EQ(q, g.m.ev(kCall_MPI_Iprobe, 2));
}

// The partner began after the completing call did (a Test that blocked inside MPI until 200,
// the sender at 120): the partner wins in any case, and the waiting began at the first poll
// (20), not at the completing call's begin (90): rule 2's own begin is replaced by w = p.b.
TEST(ReplayPag, PartnerAfterTheCompletingCallBeganWaitsFromTheFirstPoll) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 5, 0, 0xA0);
  for (int t = 20; t < 90; t += 2) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xA0});
  b.complete(kCall_MPI_Test, 90, 200, {TraceBuilder::done(0xA0, 1, 5)}, {0xA0});
  Pag g(std::move(b));
  const uint32_t c = last_test(g);
  g.p.of_op[0] = Partner{1, 7, 120};
  uint32_t op = kNoEvent, poll = kNoEvent;
  int64_t from = -1;
  const PagTarget t = RankPag(g.m.tl, g.m.ops, g.p, 0).end_edge(c, &op, &from, &poll);
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(from, 20);
  EXPECT_EQ(poll, g.m.ev(kCall_MPI_Test, 0));
}

// Rule 4 with rule 5: an MPI_Iallreduce polled with MPI_Test after every 150 us of work, a loop
// too loose for a progress candidate (kCollectiveProgressGapNs, 100 us). The latest candidate is
// another member's progress call; the loop is not tight enough for it, yet it polled across the
// member's post, which the instance could not complete without: the edge goes to that post,
// from the loop's first poll. Before: the own begin, and the loop's wait counted as its work.
TEST(ReplayPag, LoopTooLooseForAProgressCandidateStillWaitedForThePost) {
  constexpr int64_t kChunk = 150000;  // work between polls: above the progress gap (100 us)
  TraceBuilder b(0, 2);
  b.init(0, 1);
  Event& post = b.call(kCall_MPI_Iallreduce, 10, 11);
  post.req = 0xC0;
  post.bytes = 4;
  int64_t t = 11 + kChunk;
  for (int k = 0; k < 20; ++k, t += kChunk + 1) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xC0});
  b.complete(kCall_MPI_Test, t, t + 1, {TraceBuilder::done(0xC0)}, {0xC0});
  Pag g(std::move(b));
  const uint32_t c = last_test(g);
  const uint32_t first = g.m.ev(kCall_MPI_Test, 0);
  ASSERT_EQ(g.m.ops.ops.size(), 1u);
  const int64_t post_begin = t - 5 * kChunk;          // rank 1 posted while rank 0 polled
  const int64_t progress_begin = post_begin + 300000;  // and polled 0.3 ms later: the latest
  g.p.of_op[0] = Partner{1, 7, post_begin};
  g.p.progress.push_back({0, Partner{1, 8, progress_begin}});
  uint32_t op = kNoEvent, poll = kNoEvent;
  int64_t from = -1;
  const PagTarget e = RankPag(g.m.tl, g.m.ops, g.p, 0).end_edge(c, &op, &from, &poll);
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.event, 7u) << "the post, not the progress call the loop was too loose for";
  EXPECT_EQ(from, g.m.tl.ev[first].begin);
  EXPECT_EQ(poll, first);
  // A tight loop (polls 1 us apart) waits for the progress call itself.
  TraceBuilder b2(0, 2);
  b2.init(0, 1);
  Event& post2 = b2.call(kCall_MPI_Iallreduce, 10, 11);
  post2.req = 0xC0;
  post2.bytes = 4;
  int64_t t2 = 1000;
  for (; t2 < progress_begin + 2000; t2 += 1000) b2.complete(kCall_MPI_Test, t2, t2 + 1, {}, {0xC0});
  b2.complete(kCall_MPI_Test, t2, t2 + 1, {TraceBuilder::done(0xC0)}, {0xC0});
  Pag g2(std::move(b2));
  g2.p.of_op[0] = Partner{1, 7, post_begin};
  g2.p.progress.push_back({0, Partner{1, 8, progress_begin}});
  EXPECT_EQ(g2.edge(last_test(g2)).event, 8u);
  // Without a post inside the loop (every member posted before its first poll) nothing waited.
  g.p.of_op[0] = Partner{1, 7, 5};
  EXPECT_EQ(g.edge(c).rank, 0);
}
