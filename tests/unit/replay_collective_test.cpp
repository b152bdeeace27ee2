// The collective replay's combine rule (replay/collective_replay.h): the latest entry wins,
// ties to the lowest rank, the root's entry is kept apart, members are counted, a member
// that did not record the instance is neutral, and the operation is associative and
// commutative (MPI may combine in any order). Neighbourhood collectives take the latest
// in-neighbour only.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>

#include "collective_replay.h"

using namespace cpath;

namespace {

CollAgg entry(int64_t begin, int rank, uint32_t event, bool root = false, uint32_t flags = 0) {
  return CollAgg{begin, rank, event, root ? begin : INT64_MIN, root ? rank : -1, root ? event : 0u, 1, flags};
}

CollAgg fold(const std::vector<CollAgg>& v) {
  CollAgg acc = coll_agg_none();
  for (const CollAgg& a : v) coll_agg_combine(&a, &acc, 1);
  return acc;
}

}  // namespace

TEST(ReplayCollective, LatestEntryRootAndMembers) {
  const CollAgg r = fold({entry(100, 3, 7), entry(300, 1, 9, true), entry(250, 0, 2), coll_agg_none(),
                          entry(300, 2, 4, false, kCollFlagScan)});
  EXPECT_EQ(r.max_begin, 300);
  EXPECT_EQ(r.max_rank, 1) << "tie at 300: the lower rank";
  EXPECT_EQ(r.max_event, 9u);
  EXPECT_EQ(r.root_rank, 1);
  EXPECT_EQ(r.root_begin, 300);
  EXPECT_EQ(r.members, 4) << "the member that did not record it does not count";
  EXPECT_EQ(r.flags, kCollFlagScan);
}

TEST(ReplayCollective, CombineIsOrderIndependent) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<CollAgg> v;
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      if (rng() % 4 == 0) {
        v.push_back(coll_agg_none());
        continue;
      }
      v.push_back(entry(static_cast<int64_t>(rng() % 5), i, static_cast<uint32_t>(rng() % 100), i == 2));
    }
    const CollAgg a = fold(v);
    std::shuffle(v.begin(), v.end(), rng);
    // Pairwise tree, as a reduction might do it.
    while (v.size() > 1) {
      std::vector<CollAgg> next;
      for (size_t i = 0; i + 1 < v.size(); i += 2) {
        CollAgg x = v[i + 1];
        coll_agg_combine(&v[i], &x, 1);
        next.push_back(x);
      }
      if (v.size() % 2) next.push_back(v.back());
      v.swap(next);
    }
    const CollAgg b = v[0];
    EXPECT_EQ(a.max_begin, b.max_begin);
    EXPECT_EQ(a.max_rank, b.max_rank);
    EXPECT_EQ(a.max_event, b.max_event);
    EXPECT_EQ(a.root_rank, b.root_rank);
    EXPECT_EQ(a.members, b.members);
  }
}

TEST(ReplayCollective, NeighbourhoodWaitsForInNeighboursOnly) {
  // Rank 0's in-neighbours are 1 and 3; rank 2 sent too (it is an out-neighbour of rank 0
  // elsewhere in the topology) and is the latest, but does not count.
  const std::vector<NeighbourEntry> got = {{1, 5, 500}, {2, 8, 900}, {3, 4, 200}};
  bool complete = false;
  const Partner p = latest_in_neighbour(got, {1, 3}, &complete);
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.event, 5u);
  EXPECT_EQ(p.begin, 500);
  EXPECT_TRUE(complete);
  const Partner q = latest_in_neighbour({{3, 4, 200}}, {1, 3}, &complete);
  EXPECT_EQ(q.rank, 3);
  EXPECT_FALSE(complete) << "rank 1 did not record the instance";
  EXPECT_FALSE(latest_in_neighbour({}, {}, &complete).valid());
  EXPECT_TRUE(complete) << "no in-neighbour (a border of a non-periodic grid): nothing to wait for";
}

// Members that paired different persistent operations (their n-th inits on the communicator
// were different calls) are told apart by their inits' calls; members that did not record the
// instance do not make it look mispaired.
TEST(ReplayCollective, DifferentPersistentInitsAreSeen) {
  auto member = [](uint32_t init_ord) {
    CollAgg a = entry(100, 0, 1);
    a.init_min = a.init_max = init_ord;
    return a;
  };
  const CollAgg same = fold({member(kNoInit), coll_agg_none(), member(kNoInit)});
  EXPECT_EQ(same.init_min, same.init_max);
  const CollAgg persistent = fold({member(1), member(1), coll_agg_none()});
  EXPECT_EQ(persistent.init_min, 1u);
  EXPECT_EQ(persistent.init_max, 1u);
  const CollAgg crossed = fold({member(0), member(1)});
  EXPECT_NE(crossed.init_min, crossed.init_max);
  const CollAgg mixed = fold({member(0), member(kNoInit)});
  EXPECT_NE(mixed.init_min, mixed.init_max);
}
