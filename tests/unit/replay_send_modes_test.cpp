// Send modes (replay/send_modes.h, replay/p2p_replay.h judge_match): which sends wait for
// their receiver and which receives also wait for the sender's completing call, against the
// eager limit within a host and between hosts (docs/pag-rules.md rule 3).
#include <gtest/gtest.h>

#include "p2p_replay.h"
#include "replay_fixture.h"
#include "send_modes.h"

using namespace cpath_test;

TEST(ReplaySendModes, WhoWaitsForTheReceiver) {
  const uint64_t limit = 4096;
  EXPECT_TRUE(send_waits_for_receiver(SendMode::Synchronous, 8, limit)) << "synchronous: always";
  EXPECT_FALSE(send_waits_for_receiver(SendMode::Standard, 8, limit)) << "eager";
  EXPECT_FALSE(send_waits_for_receiver(SendMode::Standard, 4096, limit)) << "at the limit: still eager";
  EXPECT_TRUE(send_waits_for_receiver(SendMode::Standard, 4097, limit)) << "rendezvous";
  EXPECT_FALSE(send_waits_for_receiver(SendMode::Buffered, 1 << 20, limit)) << "buffered: never";
  EXPECT_TRUE(send_waits_for_receiver(SendMode::Ready, 1 << 20, limit)) << "ready: sent as standard";
  EXPECT_FALSE(send_waits_for_receiver(SendMode::Ready, 8, limit));
  EXPECT_FALSE(send_is_rendezvous(SendMode::Synchronous, 8, limit)) << "small synchronous data travels eagerly";
  EXPECT_TRUE(send_is_rendezvous(SendMode::Synchronous, 1 << 20, limit));
  EXPECT_FALSE(send_is_rendezvous(SendMode::Buffered, 1 << 20, limit));
  // The receive of a non-blocking synchronous send may wait for its sender whatever the size
  // (MPICH 4.0 advanced a 256-byte MPI_Issend only from its sender's MPI_Wait).
  EXPECT_TRUE(receive_may_wait_for_sender(SendMode::Synchronous, 8, limit));
  EXPECT_TRUE(receive_may_wait_for_sender(SendMode::Standard, 4097, limit));
  EXPECT_FALSE(receive_may_wait_for_sender(SendMode::Standard, 4096, limit)) << "eager";
  EXPECT_FALSE(receive_may_wait_for_sender(SendMode::Buffered, 1 << 20, limit));
  EXPECT_TRUE(receive_may_wait_for_sender(SendMode::Ready, 1 << 20, limit)) << "ready: sent as standard";
}

TEST(ReplaySendModes, LimitsAndHostsComeFromTheTrace) {
  TraceBuilder a(0, 2, "node7"), b(1, 2, "node7"), c(1, 2, "node8");
  a.t.meta.emplace_back("eager_limit_intra", "123");  // the first value of a key counts
  EXPECT_EQ(eager_limits_of(a.t).intra, 4096u);
  EXPECT_EQ(eager_limits_of(a.t).inter, 65536u);
  EXPECT_EQ(eager_limits_of(a.t).source, "test");
  EXPECT_EQ(host_id(a.t), host_id(b.t));
  EXPECT_NE(host_id(a.t), host_id(c.t));
  RankTrace bare;
  EXPECT_EQ(eager_limits_of(bare).source, "default");
}

TEST(ReplaySendModes, TheReceiverJudgesEachMatch) {
  EagerLimits lim;
  lim.intra = 4096;
  lim.inter = 65536;
  SendRecord s;
  const uint64_t host = 1;  // the sender's
  s.mode = static_cast<uint8_t>(SendMode::Standard);
  s.bytes = 8192;
  s.post_event = 3;
  s.post_begin = 100;
  // 8 KiB: rendezvous within a host, eager between hosts.
  EXPECT_TRUE(judge_match(s, host, 2, OpKind::Recv, 1, lim).sender_waits);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 9, lim).sender_waits);
  // A blocking rendezvous send: the receive depends on its posting call only.
  s.flags = kSendBlocking;
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 1, lim).extra.valid());
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 1, lim).completion_unknown);
  // Non-blocking and never completed (or freed while active): the edge to its completing call
  // is missing, and said so; eager, nothing is missing.
  s.flags = 0;
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 1, lim).extra.valid());
  EXPECT_TRUE(judge_match(s, host, 2, OpKind::Recv, 1, lim).completion_unknown);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 9, lim).completion_unknown);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Peek, 1, lim).completion_unknown);
  // Non-blocking: also on the call that completed it; a probe does not.
  s.done_event = 7;
  s.done_begin = 250;
  const MatchVerdict v = judge_match(s, host, 2, OpKind::Recv, 1, lim);
  ASSERT_TRUE(v.extra.valid());
  EXPECT_EQ(v.extra.rank, 2);
  EXPECT_EQ(v.extra.event, 7u);
  EXPECT_EQ(v.extra.begin, 250);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Peek, 1, lim).extra.valid());
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 9, lim).extra.valid()) << "eager between hosts";
  // A small synchronous message: the receive also depends on the completing call, even
  // between hosts (the protocol, not the size, is what needs the sender).
  s.mode = static_cast<uint8_t>(SendMode::Synchronous);
  s.bytes = 8;
  EXPECT_EQ(judge_match(s, host, 2, OpKind::Recv, 9, lim).extra.event, 7u);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Peek, 9, lim).extra.valid());
  s.mode = static_cast<uint8_t>(SendMode::Buffered);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 1, lim).sender_waits);
  EXPECT_FALSE(judge_match(s, host, 2, OpKind::Recv, 1, lim).extra.valid());
}

// Open MPI's ob1 sends up to 256 bytes inline; a larger eager standard send may be held until
// the receiver's MPI takes it. Such a send gets the receiver's calls as candidates, but it
// never needed the receive (a local send for Misarrangement) and its receive still depends on
// the posting call alone.
TEST(ReplaySendModes, EagerSendsAboveTheInlineLimitMayBeHeld) {
  EXPECT_FALSE(send_may_be_held(SendMode::Standard, 256, 256, 4096)) << "inline";
  EXPECT_TRUE(send_may_be_held(SendMode::Standard, 257, 256, 4096));
  EXPECT_TRUE(send_may_be_held(SendMode::Standard, 4096, 256, 4096)) << "at the eager limit";
  EXPECT_FALSE(send_may_be_held(SendMode::Standard, 4097, 256, 4096)) << "rendezvous: waits anyway";
  EXPECT_FALSE(send_may_be_held(SendMode::Buffered, 1000, 256, 4096));
  EXPECT_TRUE(send_may_be_held(SendMode::Ready, 1000, 256, 4096)) << "sent as standard (Open MPI held one)";
  EXPECT_FALSE(send_may_be_held(SendMode::Synchronous, 1000, 256, 4096)) << "waits anyway";
  EagerLimits lim;
  lim.intra = 4096;
  lim.inter = 65536;
  lim.inline_intra = 256;
  lim.inline_inter = 65536;
  SendRecord s;
  s.mode = static_cast<uint8_t>(SendMode::Standard);
  s.bytes = 1000;
  s.done_event = 7;
  s.done_begin = 250;
  const MatchVerdict same = judge_match(s, 1, 2, OpKind::Recv, 1, lim);
  EXPECT_TRUE(same.sender_held);
  EXPECT_FALSE(same.sender_waits);
  EXPECT_FALSE(same.extra.valid()) << "the data left eagerly: the receive needs only the post";
  EXPECT_FALSE(judge_match(s, 1, 2, OpKind::Recv, 9, lim).sender_held) << "between hosts: not held";
  s.bytes = 200;
  EXPECT_FALSE(judge_match(s, 1, 2, OpKind::Recv, 1, lim).sender_held);
}

TEST(ReplaySendModes, InlineLimitsComeFromTheTraceOrEqualTheEagerLimits) {
  TraceBuilder a(0, 2, "node7");
  EXPECT_EQ(eager_limits_of(a.t).inline_intra, eager_limits_of(a.t).intra) << "not recorded: nothing held";
  EXPECT_EQ(eager_limits_of(a.t).inline_inter, eager_limits_of(a.t).inter);
  RankTrace t;
  t.meta.emplace_back("eager_limit_intra", "4096");
  t.meta.emplace_back("eager_inline_intra", "256");
  EXPECT_EQ(eager_limits_of(t).inline_intra, 256u);
  EXPECT_EQ(eager_limits_of(t).inline_inter, eager_limits_of(t).inter);
}
