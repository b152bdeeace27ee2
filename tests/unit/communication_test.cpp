#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "call_info.h"
#include "communication.h"
#include "rank_mapping.h"

using namespace cpath;

TEST(SizeBin, OpenMpiMonitoringBins) {
  EXPECT_EQ(size_bin(0), 0);
  EXPECT_EQ(size_bin(1), 1);
  EXPECT_EQ(size_bin(2), 2);
  EXPECT_EQ(size_bin(3), 2);
  EXPECT_EQ(size_bin(4), 3);
  EXPECT_EQ(size_bin(4095), 12);
  EXPECT_EQ(size_bin(4096), 13);
  EXPECT_EQ(size_bin(1ull << 63), 64);
  EXPECT_EQ(size_bin(~0ull), 64);
}

namespace {
std::pair<int64_t, int64_t> moved(unsigned call, uint64_t b, int n, bool root, bool inter = false) {
  int64_t s = 0, r = 0;
  collective_sent_received(call, b, n, root, inter, &s, &r);
  return {s, r};
}
}  // namespace

TEST(CollectiveBytes, RulePerOperation) {
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(moved(kCall_MPI_Bcast, 16, 4, true), P(16, 0));
  EXPECT_EQ(moved(kCall_MPI_Bcast, 16, 4, false), P(0, 16));
  EXPECT_EQ(moved(kCall_MPI_Ibcast, 16, 4, false), P(0, 16));
  EXPECT_EQ(moved(kCall_MPI_Gather, 400, 4, true), P(0, 400));
  EXPECT_EQ(moved(kCall_MPI_Gather, 100, 4, false), P(100, 0));
  EXPECT_EQ(moved(kCall_MPI_Reduce, 8, 4, true), P(8, 8));
  EXPECT_EQ(moved(kCall_MPI_Reduce, 8, 4, false), P(8, 0));
  EXPECT_EQ(moved(kCall_MPI_Allreduce, 64, 4, false), P(64, 64));
  EXPECT_EQ(moved(kCall_MPI_Allgather, 400, 4, false), P(100, 400));
  EXPECT_EQ(moved(kCall_MPI_Reduce_scatter_block, 400, 4, false), P(400, 100));
  EXPECT_EQ(moved(kCall_MPI_Alltoallv, 400, 4, false), P(kBytesUnknown, 400));
  EXPECT_EQ(moved(kCall_MPI_Ineighbor_alltoall, 400, 4, false), P(kBytesUnknown, 400));
  EXPECT_EQ(moved(kCall_MPI_Reduce_scatter, 400, 4, false), P(400, kBytesUnknown));
  EXPECT_EQ(moved(kCall_MPI_Barrier, 0, 4, false), P(0, 0));
  EXPECT_EQ(moved(kCall_MPI_Comm_split, 0, 4, false), P(0, 0));
  EXPECT_EQ(moved(kCall_MPI_File_write_all, 10, 4, false), P(10, 0));
  EXPECT_EQ(moved(kCall_MPI_File_iread_at_all, 10, 4, false), P(0, 10));
  EXPECT_EQ(moved(kCall_MPI_Allreduce, 64, 4, false, true), P(kBytesUnknown, kBytesUnknown));
}

TEST(TrafficGraph, MergesDirectionsDropsSelf) {
  TrafficGraph g = traffic_graph({{0, 1, 10, 1}, {1, 0, 5, 1}, {2, 2, 100, 1}, {1, 2, 7, 1}}, 3);
  ASSERT_EQ(g.begin.size(), 4u);
  ASSERT_EQ(g.begin[1] - g.begin[0], 1u);  // 0: {1}
  EXPECT_EQ(g.adj[g.begin[0]], 1);
  EXPECT_EQ(g.weight[g.begin[0]], 15u);
  EXPECT_EQ(g.begin[2] - g.begin[1], 2u);  // 1: {0, 2}
  EXPECT_EQ(g.begin[3] - g.begin[2], 1u);  // 2: {1}, no self loop
  EXPECT_EQ(g.weight[g.begin[2]], 7u);
}

namespace {
// Two groups talking heavily inside, lightly along a ring.
std::vector<P2PPair> two_groups(int n, int group_of(int)) {
  std::vector<P2PPair> p;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b)
      if (a != b && group_of(a) == group_of(b)) p.push_back({a, b, 1 << 20, 4});
    p.push_back({a, (a + 1) % n, 100, 1});
  }
  return p;
}
int parity(int r) { return r % 2; }
int below3(int r) { return r % 8 < 3 ? 0 : 1; }
}  // namespace

TEST(MapRanks, SeparatesTwoGroupsScotchAndGreedy) {
  const std::vector<P2PPair> pairs = two_groups(8, parity);
  for (bool scotch : {true, false}) {
    std::string mapper;
    std::vector<int32_t> part = map_ranks(traffic_graph(pairs, 8), {4, 4}, &mapper, scotch);
    ASSERT_EQ(part.size(), 8u);
    for (int r = 2; r < 8; ++r) EXPECT_EQ(part[r], part[r % 2]) << mapper << " rank " << r;
    EXPECT_NE(part[0], part[1]) << mapper;
    EXPECT_EQ(internode_bytes(pairs, part), 800u) << mapper;
  }
}

TEST(MapRanks, UnequalCapacitiesAreExact) {
  // Groups of 3 and 5 ranks, nodes of 5 and 3: each group must land on the node of its size.
  const std::vector<P2PPair> pairs = two_groups(8, below3);
  for (bool scotch : {true, false}) {
    std::string mapper;
    std::vector<int32_t> part = map_ranks(traffic_graph(pairs, 8), {5, 3}, &mapper, scotch);
    int on0 = 0;
    for (int32_t p : part) on0 += p == 0;
    EXPECT_EQ(on0, 5) << mapper;
    for (int r = 0; r < 3; ++r) EXPECT_EQ(part[r], 1) << mapper << " rank " << r;
  }
}

TEST(MapRanks, NearestNeighbourAtScale) {
  // 4096 ranks in a ring, nodes of 64: the best mapping cuts 64 ring edges. The graph and the
  // mapper see only the 8192 pairs that talk.
  const int n = 4096;
  std::vector<P2PPair> pairs;
  for (int r = 0; r < n; ++r) {
    pairs.push_back({r, (r + 1) % n, 1000, 1});
    pairs.push_back({r, (r + n - 1) % n, 1000, 1});
  }
  // A scrambled starting point: rank r on node (r * 37) % 64.
  std::vector<int32_t> scrambled(n);
  for (int r = 0; r < n; ++r) scrambled[r] = (r * 37) % 64;
  for (bool scotch : {true, false}) {
    std::string mapper;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<int32_t> part = map_ranks(traffic_graph(pairs, n), std::vector<int32_t>(64, 64), &mapper, scotch);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<int> count(64, 0);
    for (int32_t p : part) ++count[static_cast<size_t>(p)];
    for (int c : count) ASSERT_EQ(c, 64) << mapper;
    const uint64_t cut = internode_bytes(pairs, part);
    EXPECT_LE(cut, 2u * 2 * 64 * 1000) << mapper;  // at most twice the optimum (both directions)
    EXPECT_LT(cut, internode_bytes(pairs, scrambled)) << mapper;
    std::printf("%s: 4096 ranks, cut %llu bytes (optimum %d), %.3f s\n", mapper.c_str(),
                static_cast<unsigned long long>(cut), 2 * 64 * 1000, s);
  }
}

#include "options.h"

TEST(Options, RanksPerNode) {
  std::vector<std::string> w;
  EXPECT_EQ(parse_options("ranks_per_node=4", &w).ranks_per_node, 4);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(parse_options("", &w).ranks_per_node, 0);
  EXPECT_EQ(parse_options("ranks_per_node=-2", &w).ranks_per_node, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("ranks_per_node"), std::string::npos);
}
