// The walk on one rank (replay/critical_path_walk.h walk_local): segments alternate compute
// and MPI, are contiguous in time, hand the path over where an end edge leads to another rank,
// and end with the start-up before MPI_Init; the step limit stops a runaway walk.
#include <gtest/gtest.h>

#include "critical_path_walk.h"
#include "forward_pass.h"
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

// The compact form the measured path is kept in (replay/path_segments.h) gives back every
// segment, forwards and backwards, including the rare ones: gaps where the path left the rank,
// a prev that is not the event before, times far apart, zero and negative differences.
TEST(ReplayWalk, CompactPathGivesBackEverySegmentBothWays) {
  std::vector<Segment> in;
  uint64_t x = 88172645463325252ull;  // xorshift: the same sequence every run
  auto rnd = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int64_t t = 1700000000000000000;  // aligned ns since the epoch
  uint32_t ev = 500000;
  for (int k = 0; k < 20000; ++k) {
    Segment s;
    const uint64_t r = rnd();
    s.end = r % 5 == 0 ? t - static_cast<int64_t>(rnd() % 1000000000) : t;  // a gap: the path left the rank
    s.begin = s.end - static_cast<int64_t>(rnd() % (r % 7 == 0 ? 10000000000ull : 3000));
    s.kind = static_cast<SegmentKind>(r % 3);
    s.passed = r % 11 == 0;
    ev = r % 13 == 0 ? static_cast<uint32_t>(rnd() % 0xfffffff0u) : ev - static_cast<uint32_t>(r % 3);
    s.event = ev;
    s.prev = r % 4 == 0 ? kNoEvent : r % 4 == 1 ? ev - 1 : static_cast<uint32_t>(rnd() % 0xfffffff0u);
    in.push_back(s);
    t = s.begin;
  }
  PathSegments p;
  for (const Segment& s : in) p.push_back(s);
  ASSERT_EQ(p.size(), in.size());
  auto same = [](const Segment& a, const Segment& b) {
    return a.begin == b.begin && a.end == b.end && a.event == b.event && a.prev == b.prev && a.kind == b.kind &&
           a.passed == b.passed;
  };
  size_t i = 0;
  for (const Segment& s : p) {
    ASSERT_LT(i, in.size());
    ASSERT_TRUE(same(s, in[i])) << "forwards, segment " << i;
    ++i;
  }
  EXPECT_EQ(i, in.size());
  i = in.size();
  for (auto it = p.rbegin(); it != p.rend(); ++it) {
    ASSERT_GT(i, 0u);
    --i;
    ASSERT_TRUE(same(*it, in[i])) << "backwards, segment " << i;
  }
  EXPECT_EQ(i, 0u);

  // A walked chain (contiguous, prev the event before, short times) takes a few bytes each.
  PathSegments chain;
  int64_t c = 1700000000000000000;
  for (uint32_t e = 100000; e > 1; --e) {
    chain.push_back(Segment{c - 900, c, e, e - 1, SegmentKind::Compute});
    chain.push_back(Segment{c - 1500, c - 900, e - 1, kNoEvent, SegmentKind::Mpi});
    c -= 1500;
  }
  chain.shrink_to_fit();
  EXPECT_LE(chain.bytes(), 5 * chain.size() + 16) << "32 bytes each as Segments";
  const PathSegments none;
  EXPECT_TRUE(none.begin() == none.end());
  EXPECT_TRUE(none.rbegin() == none.rend());
}

// The re-timed run's end edges packed by how many distinct vertices a row's scenarios have
// (RetimedRun::pack_edges): every scenario reads back its own vertex, for one, two (the mask
// crossing a 64-scenario word) and more distinct vertices, and a vertex of a rank too large to
// fit beside the kind.
TEST(RetimedEdges, EveryScenarioReadsItsOwnVertex) {
  const uint64_t a = cpath::pack_vertex(0, 7), b = cpath::pack_vertex(3, 2), c = cpath::pack_vertex(1, 9);
  for (int S : {1, 2, 3, 4, 10, 64, 65, 130}) {
    std::vector<std::vector<uint64_t>> rows;
    rows.push_back(std::vector<uint64_t>(S, a));               // one vertex
    std::vector<uint64_t> two(S, a);
    for (int s = 0; s < S; s += 3) two[s] = b;                  // two: b first when S > 0
    rows.push_back(two);
    std::vector<uint64_t> last(S, b);
    last[S - 1] = a;                                            // two, the second only last
    rows.push_back(last);
    if (S >= 3) {
      std::vector<uint64_t> three(S, a);
      three[1] = b;
      three[S - 1] = c;
      rows.push_back(three);
    }
    const uint64_t far = cpath::pack_vertex(1 << 30, 5);  // its top bit is the kind's
    rows.push_back(std::vector<uint64_t>(S, far));
    cpath::RetimedRun run;
    run.scenarios = S;
    run.rank = 0;
    for (const auto& w : rows) run.edge_at.push_back(cpath::RetimedRun::pack_edges(w.data(), S, &run.edge_verts));
    for (uint32_t r = 0; r < rows.size(); ++r) run.row.push_back(r);
    for (uint32_t r = 0; r < rows.size(); ++r)
      for (int s = 0; s < S; ++s) EXPECT_EQ(run.edge_of(r, s), rows[r][static_cast<size_t>(s)]) << "S " << S << " row " << r << " s " << s;
    // One vertex is in the row's word; two take 2 + ceil(S / 64) words where S would take more;
    // more take S.
    EXPECT_EQ(run.edge_at[0] >> cpath::RetimedRun::kEdgeKindShift, 1u);
    if (S > 3) {
      EXPECT_EQ(run.edge_at[1] >> cpath::RetimedRun::kEdgeKindShift, 2u);
    } else if (S > 1) {
      EXPECT_EQ(run.edge_at[1] >> cpath::RetimedRun::kEdgeKindShift, 3u);
    }
    if (S >= 3) {
      EXPECT_EQ(run.edge_at[3] >> cpath::RetimedRun::kEdgeKindShift, 3u);
    }
  }
}
