// Request linking (replay/ops.h) on hand-built traces: ops with their posting, argument and
// completing calls, persistent instances, shared handles, the counters of what cannot be
// placed, the first unsuccessful poll of each op (rule 5), and collective sequence numbers
// with gaps (rule 8).
#include <gtest/gtest.h>

#include "replay_fixture.h"

using namespace cpath_test;

namespace {

std::vector<uint32_t> done_by(const Model& m, uint32_t ev) {
  return std::vector<uint32_t>(m.ops.done_ops.begin() + m.ops.done_begin[ev],
                               m.ops.done_ops.begin() + m.ops.done_begin[ev + 1]);
}

}  // namespace

TEST(ReplayOps, NonBlockingOpsAreCompletedByTheirWait) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Isend, 10, 11, 1, 5, 8, 0xA0);
  Event& r = b.p2p(kCall_MPI_Irecv, 20, 21, kRankAnySource, 6, 0, 0xB0);
  r.flags = kFlagAnySource;
  b.complete(kCall_MPI_Waitall, 30, 40, {TraceBuilder::done(0xB0, 1, 6), TraceBuilder::done(0xA0)});
  Model m(std::move(b));
  const uint32_t isend = m.ev(kCall_MPI_Isend), irecv = m.ev(kCall_MPI_Irecv), wait = m.ev(kCall_MPI_Waitall);
  const uint32_t s = m.op_posted_by(isend), rv = m.op_posted_by(irecv);
  ASSERT_NE(s, kNoEvent);
  ASSERT_NE(rv, kNoEvent);
  EXPECT_EQ(m.ops.ops[s].kind, OpKind::Send);
  EXPECT_EQ(m.ops.ops[s].done, wait);
  EXPECT_EQ(m.ops.ops[rv].kind, OpKind::Recv);
  EXPECT_EQ(m.ops.ops[rv].done, wait);
  EXPECT_EQ(m.ops.ops[rv].peer, 1) << "a wildcard receive takes its actual source from the status";
  EXPECT_EQ(done_by(m, wait), (std::vector<uint32_t>{rv, s}));
  EXPECT_EQ(m.ops.unknown_requests, 0u);
  EXPECT_EQ(m.ops.never_completed, 0u);
}

TEST(ReplayOps, PersistentRequestsMakeOneOpPerStart) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Send_init, 5, 6, 1, 5, 8, 0xC0);
  for (int i = 0; i < 2; ++i) {
    b.call(kCall_MPI_Start, 10 + 20 * i, 11 + 20 * i).req = 0xC0;
    b.complete(kCall_MPI_Wait, 15 + 20 * i, 16 + 20 * i, {TraceBuilder::done(0xC0)});
  }
  b.call(kCall_MPI_Request_free, 60, 61).req = 0xC0;
  Model m(std::move(b));
  ASSERT_EQ(m.ops.ops.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const Op& o = m.ops.ops[static_cast<size_t>(i)];
    EXPECT_EQ(o.post, m.ev(kCall_MPI_Start, i));
    EXPECT_EQ(o.args, m.ev(kCall_MPI_Send_init));
    EXPECT_EQ(o.done, m.ev(kCall_MPI_Wait, i));
  }
  EXPECT_EQ(m.ops.freed_active, 0u);
}

TEST(ReplayOps, OneHandleForSeveralLiveRequestsCompletesOldestFirst) {
  // Open MPI hands out one shared request object for sends that completed at once.
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Isend, 10, 11, 1, 5, 8, 0xD0);
  b.p2p(kCall_MPI_Isend, 12, 13, 1, 6, 8, 0xD0);
  b.complete(kCall_MPI_Wait, 20, 21, {TraceBuilder::done(0xD0)});
  b.complete(kCall_MPI_Wait, 22, 23, {TraceBuilder::done(0xD0)});
  Model m(std::move(b));
  ASSERT_EQ(m.ops.ops.size(), 2u);
  EXPECT_EQ(m.ops.ops[0].done, m.ev(kCall_MPI_Wait, 0));
  EXPECT_EQ(m.ops.ops[1].done, m.ev(kCall_MPI_Wait, 1));
}

TEST(ReplayOps, WhatCannotBePlacedIsCounted) {
  TraceBuilder b(0, 2);
  b.comm(0x3000, 88, {});                             // group unknown
  b.comm(0x4000, 89, {0, 1}, kCommInter);             // intercommunicator
  b.init(0, 1);
  b.complete(kCall_MPI_Wait, 5, 6, {TraceBuilder::done(0xEE)});  // never created
  b.p2p(kCall_MPI_Isend, 10, 11, 1, 5, 8, 0xF0);                 // never completed
  b.p2p(kCall_MPI_Irecv, 12, 13, 1, 5, 0, 0xF1);
  b.call(kCall_MPI_Request_free, 14, 15).req = 0xF1;             // freed while active
  b.p2p(kCall_MPI_Send, 20, 21, 1, 5).comm = 0x9999;             // no record
  b.call(kCall_MPI_Allreduce, 22, 23).comm = 0x9999;
  Event& sr = b.p2p(kCall_MPI_Sendrecv, 24, 25, 1, 5);
  sr.peer2 = 1;
  sr.tag2 = 5;
  sr.comm = 0x3000;
  b.p2p(kCall_MPI_Send, 26, 27, 1, 5).comm = 0x4000;
  Model m(std::move(b));
  EXPECT_EQ(m.ops.unknown_requests, 1u);
  EXPECT_EQ(m.ops.never_completed, 1u);
  EXPECT_EQ(m.ops.freed_active, 1u);
  EXPECT_EQ(m.ops.unknown_comm, 4u) << "Send and Allreduce without a record, both halves of the Sendrecv";
  EXPECT_EQ(m.ops.intercomm_ops, 1u);
}

TEST(ReplayOps, FirstUnsuccessfulTestIsTheFirstPoll) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 7, 0, 0xA0);
  for (int i = 0; i < 3; ++i) b.complete(kCall_MPI_Test, 20 + 10 * i, 21 + 10 * i, {}, {0xA0});
  b.complete(kCall_MPI_Test, 60, 61, {TraceBuilder::done(0xA0, 1, 7)}, {0xA0});
  // The handle is reused by a later request: its polls start afresh.
  b.p2p(kCall_MPI_Irecv, 70, 71, 1, 8, 0, 0xA0);
  b.complete(kCall_MPI_Wait, 80, 90, {TraceBuilder::done(0xA0, 1, 8)});
  Model m(std::move(b));
  ASSERT_EQ(m.ops.ops.size(), 2u);
  EXPECT_EQ(m.ops.first_poll(0), m.ev(kCall_MPI_Test, 0));
  EXPECT_EQ(m.ops.ops[0].done, m.ev(kCall_MPI_Test, 3));
  EXPECT_EQ(m.ops.first_poll(1), kNoEvent);
}

TEST(ReplayOps, PollsListAllRequestsButNotTheOnesCompletedThere) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 7, 0, 0xA0);
  b.p2p(kCall_MPI_Irecv, 12, 13, 1, 8, 0, 0xB0);
  b.complete(kCall_MPI_Testsome, 20, 21, {TraceBuilder::done(0xA0, 1, 7)}, {0xA0, 0xB0});
  b.complete(kCall_MPI_Testsome, 30, 31, {}, {0, 0xB0});
  b.complete(kCall_MPI_Testsome, 40, 41, {TraceBuilder::done(0xB0, 1, 8)}, {0, 0xB0});
  Model m(std::move(b));
  EXPECT_EQ(m.ops.first_poll(0), kNoEvent) << "completed by its first test: never polled unsuccessfully";
  EXPECT_EQ(m.ops.first_poll(1), m.ev(kCall_MPI_Testsome, 0));
}

TEST(ReplayOps, FirstPollOfEachThread) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 1, 7, 0, 0xA0);
  b.complete(kCall_MPI_Test, 20, 21, {}, {0xA0}, 1);  // thread 1 polls first
  b.complete(kCall_MPI_Test, 30, 31, {}, {0xA0}, 0);
  b.complete(kCall_MPI_Test, 32, 33, {}, {0xA0}, 1);
  b.complete(kCall_MPI_Wait, 40, 50, {TraceBuilder::done(0xA0, 1, 7)}, {}, 0);
  Model m(std::move(b));
  const uint32_t t1 = m.ev(kCall_MPI_Test, 0), t0 = m.ev(kCall_MPI_Test, 1);
  ASSERT_EQ(m.tl.slot(t1), 1u);
  EXPECT_EQ(first_poll_by(m.ops, m.tl, 0, 1), t1);
  EXPECT_EQ(first_poll_by(m.ops, m.tl, 0, 0), t0);
}

TEST(ReplayOps, UnsuccessfulProbesPollTheirKeyUntilAMessageIsTaken) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  auto iprobe = [&](int64_t t, int src, int tag, bool found, unsigned flags = 0) {
    Event& e = b.p2p(kCall_MPI_Iprobe, t, t + 1, src, tag);
    e.flag = found;
    e.flags = static_cast<uint8_t>(flags);
  };
  iprobe(10, 1, 7, false);
  iprobe(12, 1, 8, false);  // another key
  iprobe(14, 1, 7, false);
  iprobe(20, 1, 7, true);   // found: a peek, polled since 10
  b.p2p(kCall_MPI_Recv, 22, 23, 1, 7);  // takes it: no polls of its own
  iprobe(30, kRankAnySource, 7, false, kFlagAnySource);
  Event& r = b.p2p(kCall_MPI_Recv, 40, 41, 1, 7);  // posted with MPI_ANY_SOURCE, got rank 1
  r.flags = kFlagAnySource;
  Model m(std::move(b));
  const uint32_t peek = m.op_posted_by(m.ev(kCall_MPI_Iprobe, 3));
  ASSERT_NE(peek, kNoEvent);
  EXPECT_EQ(m.ops.ops[peek].kind, OpKind::Peek);
  EXPECT_EQ(m.ops.first_poll(peek), m.ev(kCall_MPI_Iprobe, 0));
  EXPECT_EQ(m.ops.first_poll(m.op_posted_by(m.ev(kCall_MPI_Recv, 0))), kNoEvent);
  EXPECT_EQ(m.ops.first_poll(m.op_posted_by(m.ev(kCall_MPI_Recv, 1))), m.ev(kCall_MPI_Iprobe, 4));
}

TEST(ReplayOps, CollectivesAreNumberedPerCommunicatorWithGaps) {
  TraceBuilder b(0, 2);
  const int x = b.comm(0x2000, 77, {0, 1});
  b.init(0, 1);
  b.call(kCall_MPI_Barrier, 10, 11);                // world 0
  b.call(kCall_MPI_Barrier, 12, 13).comm = 0x2000;  // x 0
  b.gap(0, 3, 20);                                  // 3 on world while paused
  b.call(kCall_MPI_Pcontrol, 20, 21).aux = 1;
  b.call(kCall_MPI_Allreduce, 30, 31);              // world 4
  b.call(kCall_MPI_Ibarrier, 32, 33).req = 0xAB;    // world 5
  b.call(kCall_MPI_Bcast, 34, 35).comm = 0x2000;    // x 1
  b.complete(kCall_MPI_Wait, 36, 37, {TraceBuilder::done(0xAB)});
  b.gap(x, 2, 50);                                  // at MPI_Finalize: no call follows
  b.finalize(50);
  Model m(std::move(b));
  std::vector<std::pair<int32_t, uint32_t>> got;
  for (const Op& o : m.ops.ops)
    if (o.kind == OpKind::Collective) got.emplace_back(o.comm, o.seq);
  EXPECT_EQ(got, (std::vector<std::pair<int32_t, uint32_t>>{{0, 0}, {x, 0}, {0, 4}, {0, 5}, {x, 1}}));
  ASSERT_EQ(m.ops.coll_count.size(), 2u);
  EXPECT_EQ(m.ops.coll_count[0], 6u);
  EXPECT_EQ(m.ops.coll_count[static_cast<size_t>(x)], 4u);
}

// MPI orders a window's collectives per window, not with its communicator's: each window's
// (fences, paused ones included) are numbered on their own, its creation on the communicator.
TEST(ReplayOps, CollectivesOnWindowsCountOnTheirOwn) {
  TraceBuilder b(0, 2);
  b.init(0, 1);
  b.call(kCall_MPI_Win_create, 10, 11).obj = 0x77;  // world 0, creates window 0 of the world
  b.call(kCall_MPI_Win_fence, 12, 13).obj = 0x77;   // window 0: 0
  GapRecord g;  // 2 fences on that window while paused
  g.before = 2;
  g.t = 20;
  g.obj = 0x77;
  g.count = 2;
  b.t.threads[0].gaps.push_back(g);
  b.call(kCall_MPI_Win_fence, 20, 21).obj = 0x77;   // window 0: 3
  b.call(kCall_MPI_Win_create, 22, 23).obj = 0x88;  // world 1, window 1
  b.call(kCall_MPI_Barrier, 24, 25);                // world 2
  b.call(kCall_MPI_Win_fence, 26, 27).obj = 0x88;   // window 1: 0
  b.call(kCall_MPI_Win_fence, 28, 29).obj = 0x77;   // window 0: 4
  Model m(std::move(b));
  std::vector<std::tuple<uint32_t, bool, uint32_t>> got;  // seq, on a window, which
  for (uint32_t i = 0; i < m.ops.ops.size(); ++i)
    if (m.ops.ops[i].kind == OpKind::Collective)
      got.emplace_back(m.ops.ops[i].seq, static_cast<bool>(m.ops.ops[i].on_object), m.ops.object_ord(i));
  using T = std::tuple<uint32_t, bool, uint32_t>;
  EXPECT_EQ(got, (std::vector<T>{T{0, false, 0}, T{0, true, 0}, T{3, true, 0}, T{1, false, 0}, T{2, false, 0},
                                 T{0, true, 1}, T{4, true, 0}}));
  ASSERT_FALSE(m.ops.object_counts.empty());
  EXPECT_EQ(m.ops.object_counts[0], (std::vector<uint32_t>{5, 1}));
  const uint64_t world = 42;
  EXPECT_NE(instance_key(world, m.ops, 1), instance_key(world, m.ops, 5));  // two windows
  EXPECT_NE(instance_key(world, m.ops, 1), world);
  EXPECT_EQ(instance_key(world, m.ops, 0), world);
}
