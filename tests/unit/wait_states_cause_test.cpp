// Root causes (analysis/wait_states, CauseWalker): the interval of work that delayed a partner
// call runs back across calls that never wait, on the partner's thread, and a run of such calls
// is walked once however many of them were partners.
#include <gtest/gtest.h>

#include "replay_fixture.h"
#include "wait_states.h"

using namespace cpath_test;

namespace {

std::vector<DelayCost> costs(const Model& m, const std::vector<CausedWait>& caused) {
  std::vector<DelayCost> out;
  for_each_delay_cost(m.tl, caused, [&](const DelayCost& d) { out.push_back(d); });
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
  // the second barrier, after the MPI_Wait, which could wait: only the 100 us before it count.
  const auto d = costs(m, {{300000, wait, 1}, {300000, wait, 2}, {300000, wait, 3}, {50000, second, 1}});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].event, wait);
  EXPECT_EQ(d[0].start, barrier);
  EXPECT_EQ(d[0].interval, 300000 + 300);
  EXPECT_EQ(d[0].short_ns, 3 * 300000);  // all short-term: the rank was working, not waiting
  EXPECT_EQ(d[0].long_ns, 0);
  EXPECT_EQ(d[1].start, wait);
  EXPECT_EQ(d[1].interval, 100);
  EXPECT_EQ(d[1].short_ns, 100);
  EXPECT_EQ(d[1].long_ns, 50000 - 100);
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
  for (int k = 0; k < 2000; ++k) caused.push_back({1, m.ev(kCall_MPI_Isend, k), 1});
  const auto d = costs(m, caused);
  ASSERT_EQ(d.size(), 2000u);
  const uint32_t barrier = m.ev(kCall_MPI_Barrier), recv = m.ev(kCall_MPI_Recv);
  for (int k = 0; k < 2000; ++k) {
    // From the barrier up to the 1000th post, from the MPI_Recv after it.
    const uint32_t start = k < 1000 ? barrier : recv;
    const int64_t n = k < 1000 ? k + 1 : k - 999;
    ASSERT_EQ(d[static_cast<size_t>(k)].start, start) << k;
    ASSERT_EQ(d[static_cast<size_t>(k)].interval, 7 * n) << k;
  }
}
