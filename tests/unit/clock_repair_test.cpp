// The clock-condition repair (replay/clock_repair.h, docs/pag-rules.md "Clocks") on small
// hand-built timelines: the per-rank rule (beta/delta), its rounds across ranks to the least
// fixpoint, and the mapping of a moment of the aligned clock to the repaired one.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "clock_repair.h"

using namespace cpath;

namespace {

struct Call {
  int64_t b, e;
  uint32_t prev;                               // kNoEvent: thread start / MPI_Init
  std::vector<std::pair<int, uint32_t>> waits;  // (rank, call) whose begin this call waits for
};
using Rank = std::vector<Call>;
Call call(int64_t b, int64_t e, uint32_t prev, std::vector<std::pair<int, uint32_t>> w = {}) { return {b, e, prev, w}; }

struct Shifts {
  std::vector<std::vector<int64_t>> beta, delta, need1;
  int rounds = 0;
};

// Rounds as docs/pag-rules.md defines them: every rank's pass reads the other ranks' begin
// shifts of the previous round, until no begin shift changes.
Shifts run_rounds(const std::vector<Rank>& ranks, int64_t lmin, int max_rounds = 64) {
  Shifts s;
  const size_t np = ranks.size();
  s.beta.resize(np);
  s.delta.resize(np);
  s.need1.resize(np);
  for (size_t r = 0; r < np; ++r) s.beta[r].assign(ranks[r].size(), 0);
  for (int round = 1; round <= max_rounds; ++round) {
    std::vector<std::vector<int64_t>> nb(np), nd(np), need(np);
    for (size_t r = 0; r < np; ++r) {
      std::vector<int64_t> b, e, pb;
      std::vector<uint32_t> prev, cb;
      for (const Call& c : ranks[r]) {
        b.push_back(c.b);
        e.push_back(c.e);
        prev.push_back(c.prev);
        cb.push_back(static_cast<uint32_t>(pb.size()));
        for (auto [q, j] : c.waits) pb.push_back(ranks[static_cast<size_t>(q)][j].b + s.beta[static_cast<size_t>(q)][j]);
      }
      cb.push_back(static_cast<uint32_t>(pb.size()));
      clock_repair_pass(b, e, prev, cb, pb, lmin, &nb[r], &nd[r], &need[r]);
    }
    if (round == 1) s.need1 = need;
    s.rounds = round;
    const bool changed = nb != s.beta;
    s.beta = nb;
    s.delta = nd;
    if (!changed) break;
  }
  return s;
}

}  // namespace

TEST(ClockRepair, NothingToRepairMovesNothing) {
  const std::vector<Rank> ranks = {
      {call(0, 10, kNoEvent), call(100, 110, 0)},
      {call(0, 10, kNoEvent), call(50, 130, 0, {{0, 1}})},  // the receive ends after the send began
  };
  const Shifts s = run_rounds(ranks, 1);
  EXPECT_EQ(s.rounds, 1);
  for (const auto& d : s.delta)
    for (int64_t x : d) EXPECT_EQ(x, 0);
  EXPECT_EQ(s.need1[1][1], 100 + 1 - 130);
  EXPECT_EQ(s.need1[1][0], kNoConstraint);
}

TEST(ClockRepair, ViolatingEndMovesLaterCallsFollowIntervalsKept) {
  const std::vector<Rank> ranks = {
      {call(0, 10, kNoEvent), call(100, 110, 0), call(120, 130, 1)},
      // The receive [50, 90] ends before its send began at 100.
      {call(0, 10, kNoEvent), call(50, 90, 0, {{0, 1}}), call(95, 120, 1), call(200, 210, 2)},
  };
  const Shifts s = run_rounds(ranks, 1);
  EXPECT_EQ(s.need1[1][1], 11);
  EXPECT_EQ(s.delta[1], (std::vector<int64_t>{0, 11, 11, 11}));
  EXPECT_EQ(s.beta[1], (std::vector<int64_t>{0, 0, 11, 11}));
  // The receive's begin stays, its end is now the send's begin + lmin: it waited.
  EXPECT_EQ(50 + s.beta[1][1], 50);
  EXPECT_EQ(90 + s.delta[1][1], 101);
  // Compute intervals between calls are as measured.
  EXPECT_EQ((95 + s.beta[1][2]) - (90 + s.delta[1][1]), 95 - 90);
  EXPECT_EQ((200 + s.beta[1][3]) - (120 + s.delta[1][2]), 200 - 120);
  EXPECT_EQ(s.delta[0], (std::vector<int64_t>{0, 0, 0}));
}

TEST(ClockRepair, MinimalLatencyIsTheBoundary) {
  for (int64_t end : {101, 100, 99}) {
    const std::vector<Rank> ranks = {{call(100, 110, kNoEvent)}, {call(50, end, kNoEvent, {{0, 0}})}};
    const Shifts s = run_rounds(ranks, 1);
    EXPECT_EQ(s.delta[1][0], end >= 101 ? 0 : 101 - end) << end;
  }
}

// A shift induced by a shift: rank 0's receive is repaired in round 1, which moves its next
// send; rank 1's receive of that send only violates then (round 2); round 3 changes nothing.
TEST(ClockRepair, ShiftsPropagateAcrossRanksToTheLeastFixpoint) {
  const std::vector<Rank> ranks = {
      {call(0, 40, kNoEvent, {{1, 0}}), call(45, 60, 0), call(70, 80, 1)},
      {call(50, 51, kNoEvent), call(52, 55, 0, {{0, 1}}), call(90, 95, 1)},
  };
  const Shifts s = run_rounds(ranks, 1);
  EXPECT_EQ(s.need1[0][0], 11);  // 50 + 1 - 40
  EXPECT_EQ(s.need1[1][1], -9);  // 45 + 1 - 55: no violation on the aligned clock
  EXPECT_EQ(s.delta[0], (std::vector<int64_t>{11, 11, 11}));
  EXPECT_EQ(s.delta[1], (std::vector<int64_t>{0, 2, 2}));  // (45 + 11) + 1 - 55
  EXPECT_EQ(s.beta[1], (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(s.rounds, 3);
  // The least fixpoint: every constraint holds with equality where something moved.
  EXPECT_EQ(55 + s.delta[1][1], 45 + s.beta[0][1] + 1);
  EXPECT_EQ(40 + s.delta[0][0], 50 + s.beta[1][0] + 1);
}

TEST(ClockRepair, LargestOfSeveralConstraintsWinsAndNoneIsIgnored) {
  const std::vector<int64_t> b = {0, 20}, e = {10, 30};
  const std::vector<uint32_t> prev = {kNoEvent, 0}, cb = {0, 0, 3};
  const std::vector<int64_t> partners = {25, kNoConstraint, 40};  // a collective's candidates
  std::vector<int64_t> beta, delta, need;
  clock_repair_pass(b, e, prev, cb, partners, 5, &beta, &delta, &need);
  EXPECT_EQ(need[0], kNoConstraint);
  EXPECT_EQ(need[1], 40 + 5 - 30);
  EXPECT_EQ(delta, (std::vector<int64_t>{0, 15}));
}

// A thread's first call does not inherit the other thread's shift (rule 1: prev never
// crosses threads except at a thread's start, which here leads nowhere).
TEST(ClockRepair, ShiftFollowsPrevNotTimelineOrder) {
  const std::vector<int64_t> b = {0, 5, 30, 40}, e = {10, 20, 35, 50};
  const std::vector<uint32_t> prev = {kNoEvent, kNoEvent, 0, 1};
  const std::vector<uint32_t> cb = {0, 1, 1, 1, 1};
  const std::vector<int64_t> partners = {100};  // call 0 waits for a begin at 100
  std::vector<int64_t> beta, delta, need;
  clock_repair_pass(b, e, prev, cb, partners, 1, &beta, &delta, &need);
  EXPECT_EQ(delta, (std::vector<int64_t>{91, 0, 91, 0}));
  EXPECT_EQ(beta, (std::vector<int64_t>{0, 0, 91, 0}));
}

TEST(ClockRepair, MomentsMoveWithTheCallTheyBelongTo) {
  // Repaired timeline: call 0 [0,10] unmoved, call 1 [20,30] -> end +7, call 2 [40,50] +7.
  Timeline tl;
  for (auto [b, e] : {std::pair<int64_t, int64_t>{0, 10}, {20, 37}, {47, 57}}) {
    TimelineEvent te;
    te.begin = b;
    te.end = e;
    tl.ev.push_back(te);
  }
  ClockRepairResult r;
  r.beta = {0, 0, 7};
  r.delta = {0, 7, 7};
  EXPECT_EQ(r.shift_at(tl, -5), 0);  // before the first call
  EXPECT_EQ(r.shift_at(tl, 5), 0);
  EXPECT_EQ(r.shift_at(tl, 15), 0);  // compute after call 0
  EXPECT_EQ(r.shift_at(tl, 25), 0);  // inside call 1: its begin did not move
  EXPECT_EQ(r.shift_at(tl, 35), 7);  // compute after call 1
  EXPECT_EQ(r.shift_at(tl, 45), 7);  // inside call 2
  EXPECT_EQ(r.shift_at(tl, 99), 7);
  ClockRepairResult none;
  EXPECT_EQ(none.shift_at(tl, 35), 0);
}

// Each thread's calls move by their own constraints: a sample of thread 0 between its calls
// takes thread 0's shift, not that of thread 1's call that began last before it.
TEST(ClockRepair, ShiftAtTakesTheSampleThreadsCalls) {
  Timeline tl;
  const std::pair<int64_t, int64_t> times[] = {{0, 10}, {15, 25}, {30, 40}};
  const uint32_t slots[] = {0, 1, 0};
  for (int k = 0; k < 3; ++k) {
    TimelineEvent te;
    te.begin = times[k].first;
    te.end = times[k].second;
    tl.slots.push_back(slots[k]);
    tl.ev.push_back(te);
  }
  ClockRepairResult r;
  r.beta = {0, 5, 0};  // thread 1's call moved by 5 ns (originally [10, 20))
  r.delta = {0, 5, 0};
  const std::vector<uint32_t> thread0 = {0, 2}, thread1 = {1};
  EXPECT_EQ(r.shift_at(tl, 27), 5);            // any thread: thread 1's call began last
  EXPECT_EQ(r.shift_at(tl, 27, &thread0), 0);  // thread 0 computes after its unmoved call
  EXPECT_EQ(r.shift_at(tl, 27, &thread1), 5);
  EXPECT_EQ(r.shift_at(tl, 5, &thread1), 0);   // before thread 1's first call
}
