// The walk on one rank (replay/critical_path_walk.h walk_local): segments alternate compute
// and MPI, are contiguous in time, hand the path over where an end edge leads to another rank,
// and end with the start-up before MPI_Init; the step limit stops a runaway walk.
#include <gtest/gtest.h>

#include "critical_path_walk.h"
#include "pag.h"
#include "replay_fixture.h"

using namespace cpath_test;

namespace {

struct Walk {
  Model m;
  PartnerTable p;
  explicit Walk(TraceBuilder&& b) : m(std::move(b)), p(m.ops.ops.size()) {}
};

TraceBuilder rank0() {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 20, 30);
  b.p2p(kCall_MPI_Recv, 40, 100, 1, 5);
  b.p2p(kCall_MPI_Send, 110, 120, 1, 6);
  b.finalize(150);
  return b;
}

void expect_contiguous(const std::vector<Segment>& s) {
  for (size_t i = 0; i + 1 < s.size(); ++i) EXPECT_EQ(s[i + 1].end, s[i].begin) << "segments " << i << ", " << i + 1;
}

}  // namespace

TEST(ReplayWalk, FromFinalizeToTheHandOver) {
  Walk w(rank0());
  const uint32_t recv = w.m.ev(kCall_MPI_Recv);
  w.p.of_op[w.m.op_posted_by(recv)] = Partner{1, 5, 70};
  RankPag pag(w.m.tl, w.m.ops, w.p, 0);
  std::vector<Segment> segs;
  uint64_t steps = 0;
  const LocalWalkEnd end = walk_local(pag, w.m.tl, 0, pag.finalize_event(), -5, steps, 1000, &segs);
  EXPECT_EQ(end.rank, 1);
  EXPECT_EQ(end.event, 5u);
  EXPECT_FALSE(end.truncated);
  ASSERT_EQ(segs.size(), 4u);
  EXPECT_EQ(segs[0].kind, SegmentKind::Compute);  // after the Send
  EXPECT_EQ(segs[0].begin, 120);
  EXPECT_EQ(segs[0].end, 150);
  EXPECT_EQ(segs[1].kind, SegmentKind::Mpi);      // the Send, its own time
  EXPECT_EQ(segs[1].begin, 110);
  EXPECT_EQ(segs[2].kind, SegmentKind::Compute);
  EXPECT_EQ(segs[3].kind, SegmentKind::Mpi);      // the Recv, from the sender's begin
  EXPECT_EQ(segs[3].begin, 70);
  EXPECT_EQ(segs[3].end, 100);
  expect_contiguous(segs);
}

TEST(ReplayWalk, EndsWithTheStartUp) {
  Walk w(rank0());
  RankPag pag(w.m.tl, w.m.ops, w.p, 0);
  std::vector<Segment> segs;
  uint64_t steps = 0;
  const LocalWalkEnd end = walk_local(pag, w.m.tl, 0, pag.finalize_event(), -5, steps, 1000, &segs);
  EXPECT_EQ(end.rank, -1);
  ASSERT_FALSE(segs.empty());
  EXPECT_EQ(segs.back().kind, SegmentKind::Startup);
  EXPECT_EQ(segs.back().begin, -5);
  EXPECT_EQ(segs.back().end, 0);
  EXPECT_EQ(segs.front().end, 150);
  expect_contiguous(segs);
  int64_t total = 0;
  for (const Segment& s : segs) total += s.end - s.begin;
  EXPECT_EQ(total, 155);
}

TEST(ReplayWalk, StepLimitStopsTheWalk) {
  Walk w(rank0());
  RankPag pag(w.m.tl, w.m.ops, w.p, 0);
  std::vector<Segment> segs;
  uint64_t steps = 0;
  const LocalWalkEnd end = walk_local(pag, w.m.tl, 0, pag.finalize_event(), 0, steps, 2, &segs);
  EXPECT_TRUE(end.truncated);
}
