// Channel numbering (replay/p2p_channels.h): per (communicator, source, destination, tag) the
// k-th send and the k-th receive get number k, wildcard receives on their actual source and
// tag, probes see the next message without taking it, and MPI_PROC_NULL and cancelled ops
// are left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <tuple>

#include "p2p_channels.h"
#include "sorted_runs.h"
#include "replay_fixture.h"

using namespace cpath_test;

TEST(ReplayChannels, KthSendAndKthReceiveShareANumber) {
  TraceBuilder b(1, 3);
  b.init(0, 1);
  b.p2p(kCall_MPI_Send, 10, 11, 0, 5);
  b.p2p(kCall_MPI_Send, 12, 13, 0, 5);
  b.p2p(kCall_MPI_Send, 14, 15, 0, 6);  // another tag: its own channel
  b.p2p(kCall_MPI_Send, 16, 17, 2, 5);  // another destination
  b.p2p(kCall_MPI_Iprobe, 18, 19, 2, 9).flag = 1;  // sees message 0 from rank 2, tag 9
  b.p2p(kCall_MPI_Recv, 20, 21, 2, 9);
  Event& any = b.p2p(kCall_MPI_Recv, 22, 23, 2, 9);  // posted with MPI_ANY_SOURCE, got rank 2
  any.flags = kFlagAnySource;
  b.p2p(kCall_MPI_Send, 24, 25, kRankProcNull, 5);
  b.p2p(kCall_MPI_Irecv, 26, 27, 0, 5, 0, 0xC1);
  Completion cancelled = TraceBuilder::done(0xC1, 0, 5);
  cancelled.cancelled = true;
  b.complete(kCall_MPI_Wait, 28, 29, {cancelled});
  Model m(std::move(b));
  NumberedOps n = number_channels(m.tl, m.ops);
  ASSERT_EQ(n.sends.size(), 4u);
  EXPECT_EQ(n.sends[0].seq, 0u);
  EXPECT_EQ(n.sends[1].seq, 1u);
  EXPECT_EQ(n.sends[2].seq, 0u);
  EXPECT_EQ(n.sends[3].seq, 0u);
  EXPECT_TRUE(n.sends[0].ch == n.sends[1].ch);
  EXPECT_FALSE(n.sends[0].ch == n.sends[2].ch);
  EXPECT_EQ(n.key(n.sends[0]).src, 1);
  EXPECT_EQ(n.key(n.sends[0]).dst, 0);
  EXPECT_EQ(n.sends[3].peer_world, 2);
  ASSERT_EQ(n.recvs.size(), 3u);
  EXPECT_TRUE(n.recvs[0].peek);
  EXPECT_EQ(n.recvs[0].seq, 0u);
  EXPECT_EQ(n.recvs[1].seq, 0u) << "the probe did not take message 0";
  EXPECT_EQ(n.recvs[2].seq, 1u) << "the wildcard receive is numbered on its actual source";
  EXPECT_TRUE(n.recvs[1].ch == n.recvs[2].ch);
  EXPECT_EQ(n.skipped, 2u) << "MPI_PROC_NULL and the cancelled receive";
}

// Channels are indexed in key order (comm, source, destination, tag), whatever order the
// program first used them in, so that the replay sorts receives by index as the senders'
// records by key; each op's index names its own key.
TEST(ReplayChannels, ChannelIndicesFollowKeyOrder) {
  TraceBuilder b(1, 3);
  b.init(0, 1);
  b.p2p(kCall_MPI_Recv, 10, 11, 2, 9);  // (1 <- 2, tag 9) first seen
  b.p2p(kCall_MPI_Send, 12, 13, 0, 9);  // (1 -> 0, tag 9)
  b.p2p(kCall_MPI_Send, 14, 15, 0, 5);  // (1 -> 0, tag 5): the smallest key, seen last
  b.p2p(kCall_MPI_Recv, 16, 17, 0, 7);  // (1 <- 0, tag 7)
  Model m(std::move(b));
  NumberedOps n = number_channels(m.tl, m.ops);
  ASSERT_EQ(n.channels.size(), 4u);
  for (size_t i = 1; i < n.channels.size(); ++i) {
    const ChannelKey& a = n.channels[i - 1];
    const ChannelKey& c = n.channels[i];
    EXPECT_TRUE(std::tie(a.comm, a.src, a.dst, a.tag) < std::tie(c.comm, c.src, c.dst, c.tag)) << "index " << i;
  }
  ASSERT_EQ(n.sends.size(), 2u);
  ASSERT_EQ(n.recvs.size(), 2u);
  EXPECT_EQ(n.key(n.sends[0]).tag, 9);
  EXPECT_EQ(n.key(n.sends[1]).tag, 5);
  EXPECT_LT(n.sends[1].ch, n.sends[0].ch) << "tag 5 sorts before tag 9";
  EXPECT_EQ(n.key(n.recvs[0]).src, 2);
  EXPECT_EQ(n.key(n.recvs[0]).tag, 9);
  EXPECT_EQ(n.key(n.recvs[1]).src, 0);
  EXPECT_EQ(n.key(n.recvs[1]).tag, 7);
  EXPECT_LT(n.recvs[1].ch, n.recvs[0].ch) << "source 0 sorts before source 2";
}

// order_by_channel: the replay merges sends with receives in (key, sequence number) order and
// takes it from a counting sort by channel, relying on number_channels to number each
// channel's ops in the order they stand: the result must be what sorting by (key, seq,
// index) gives, with channels used in an interleaved order and probes sharing a number.
TEST(ReplayChannels, OrderByChannelIsKeyThenSequenceOrder) {
  TraceBuilder b(1, 3);
  b.init(0, 1);
  int64_t t = 10;
  for (int k = 0; k < 40; ++k, t += 10) {
    const int peer = (k * 5) % 3 == 1 ? 2 : 0, tag = (k * 7) % 4;
    if (k % 3 == 0) b.p2p(kCall_MPI_Iprobe, t, t + 1, peer, tag).flag = 1;
    b.p2p(k % 2 ? kCall_MPI_Recv : kCall_MPI_Send, t + 2, t + 3, peer, tag);
  }
  Model m(std::move(b));
  NumberedOps n = number_channels(m.tl, m.ops);
  for (const std::vector<NumberedOp>* v : {&n.sends, &n.recvs}) {
    ASSERT_GT(v->size(), 10u);
    std::vector<uint32_t> want(v->size());
    for (uint32_t i = 0; i < want.size(); ++i) want[i] = i;
    std::sort(want.begin(), want.end(), [&](uint32_t x, uint32_t y) {
      const ChannelKey &a = n.key((*v)[x]), &c = n.key((*v)[y]);
      return std::make_tuple(a.comm, a.src, a.dst, a.tag, (*v)[x].seq, x) <
             std::make_tuple(c.comm, c.src, c.dst, c.tag, (*v)[y].seq, y);
    });
    EXPECT_EQ(order_by_channel(*v, n.channels.size()), want);
  }
}

// The exchanges' merge of per-sender runs (sorted_runs.h) must give exactly std::sort's order,
// whatever the runs' lengths (empty ones too) and even when a sender's run is out of order.
TEST(ReplayChannels, SortRunsIsStdSort) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int runs = 1 + static_cast<int>(rng() % 9);
    std::vector<std::pair<uint32_t, int32_t>> v;
    std::vector<size_t> bounds(1, 0);
    for (int q = 0; q < runs; ++q) {
      const size_t len = rng() % 5 == 0 ? 0 : rng() % 40;
      std::vector<uint32_t> evs;
      for (size_t k = 0; k < len; ++k) evs.push_back(rng() % 64);
      std::sort(evs.begin(), evs.end());
      evs.erase(std::unique(evs.begin(), evs.end()), evs.end());
      if (trial % 10 == 0) std::reverse(evs.begin(), evs.end());  // a sender that broke its promise
      for (uint32_t e : evs) v.push_back({e, q});
      bounds.push_back(v.size());
    }
    std::vector<std::pair<uint32_t, int32_t>> want = v;
    std::sort(want.begin(), want.end());
    sort_runs(v.begin(), bounds, std::less<std::pair<uint32_t, int32_t>>());
    ASSERT_EQ(v, want) << "trial " << trial;
  }
}

// The forward pass's remote dependencies: sorted by rank with a counting sort, then per rank
// only if out of order; a rank out of range falls back to a whole sort. Always std::sort's order.
TEST(ReplayChannels, SortByBucketIsStdSort) {
  std::mt19937 rng(11);
  using R = std::tuple<int32_t, uint32_t, uint32_t>;
  for (int trial = 0; trial < 300; ++trial) {
    const int np = 1 + static_cast<int>(rng() % 8);
    std::vector<R> v;
    uint32_t there = 0;
    for (uint32_t mine = 0; mine < 200; ++mine) {
      if (rng() % 3) continue;
      there += rng() % 3;
      int32_t rank = static_cast<int32_t>(rng() % static_cast<uint32_t>(np));
      if (trial % 7 == 0 && rng() % 50 == 0) rank = np + 1;           // out of range
      const uint32_t t = trial % 5 == 0 ? static_cast<uint32_t>(rng() % 100) : there;  // mostly in order, or not
      v.emplace_back(rank, t, mine);
      if (rng() % 10 == 0) v.emplace_back(rank, t, mine);              // a duplicate
    }
    std::vector<R> want = v;
    std::sort(want.begin(), want.end());
    sort_by_bucket(&v, static_cast<size_t>(np), [](const R& r) { return static_cast<size_t>(std::get<0>(r)); }, std::less<R>());
    ASSERT_EQ(v, want) << "trial " << trial;
  }
}

// Rule 6, threads: receives of one channel that two threads had waiting at once were queued
// by MPI in an order the trace does not hold; they take the channel's messages in the order
// they completed, each thread's own in posting order, and are counted. Receives that do not
// overlap keep posting order.
TEST(ReplayChannels, ReceivesThreadsRacedForTakeMessagesInCompletionOrder) {
  TraceBuilder b(1, 3);
  b.init(0, 1);
  b.p2p(kCall_MPI_Recv, 10, 100, 0, 5, 8, 0, 0);   // thread 0 began first, completed second
  b.p2p(kCall_MPI_Recv, 12, 40, 0, 5, 8, 0, 1);    // thread 1: waiting at once, completed first
  b.p2p(kCall_MPI_Recv, 200, 210, 0, 5, 8, 0, 1);  // alone: posting order
  b.p2p(kCall_MPI_Irecv, 300, 302, 0, 5, 8, 0xA1, 0);
  b.p2p(kCall_MPI_Recv, 301, 500, 0, 5, 8, 0, 1);
  b.p2p(kCall_MPI_Irecv, 303, 304, 0, 5, 8, 0xB1, 0);
  b.complete(kCall_MPI_Wait, 310, 320, {TraceBuilder::done(0xB1, 0, 5)}, {}, 0);
  b.complete(kCall_MPI_Wait, 330, 340, {TraceBuilder::done(0xA1, 0, 5)}, {}, 0);
  b.p2p(kCall_MPI_Send, 600, 601, 2, 5, 8, 0, 0);  // sends by one thread: no race
  b.p2p(kCall_MPI_Send, 602, 603, 2, 5, 8, 0, 0);
  Model m(std::move(b));
  NumberedOps n = number_channels(m.tl, m.ops);
  auto seq_of_post = [&](int64_t begin) {
    for (const NumberedOp& r : n.recvs)
      if (m.tl.ev[m.ops.ops[r.op].post].begin == begin) return static_cast<int>(r.seq);
    return -1;
  };
  EXPECT_EQ(seq_of_post(12), 0) << "the receive that completed first took the first message";
  EXPECT_EQ(seq_of_post(10), 1);
  EXPECT_EQ(seq_of_post(200), 2);
  // Completion ends: Irecv A 340, Irecv B 320 (thread 0, posted A then B), Recv C 500: thread
  // 0 keeps A before B although B completed first.
  EXPECT_EQ(seq_of_post(300), 3) << "a thread's own receives stay in posting order";
  EXPECT_EQ(seq_of_post(303), 4);
  EXPECT_EQ(seq_of_post(301), 5);
  EXPECT_EQ(n.thread_races, 5u) << "two receives in the first race, three in the second";
  // The replay walks receives in (channel, index) order and expects numbers to rise with it.
  uint32_t last = 0;
  for (uint32_t ri : order_by_channel(n.recvs, n.channels.size())) {
    EXPECT_GE(n.recvs[ri].seq, last);
    last = n.recvs[ri].seq;
  }
}
