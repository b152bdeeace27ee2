// Communicator unification across processes (run under mpirun with 4 ranks):
//  - unify_communicators on synthetic per-rank record lists describing 60 communicators with
//    pseudo-random membership and member order, reused handles, size-1 communicators,
//    world-group duplicates, idups and intercommunicators: every record gets the right
//    world-rank group;
//  - the live path: a private CommRegistry tracks real MPI communicators (split, dup, create,
//    cart_sub, frees followed by new communicators), and its unified table agrees with
//    MPI_Group_translate_ranks for every one of them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <climits>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "comm_registry.h"
#include "comm_unification.h"
#include "record_writer.h"

using namespace cpath;

namespace {

int g_rank = 0, g_size = 1;

uint32_t mix(uint32_t a, uint32_t b) {
  uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 13;
  return h;
}

struct SynthComm {
  std::vector<int32_t> members;  // world ranks in local-rank order
  int32_t leader = 0;
  uint32_t counter = 0;
  bool inter = false;
  std::vector<uint32_t> member_counter;  // intercommunicators: each member's own counter
};

// The same list on every rank: communicator c's members and order are a function of c.
std::vector<SynthComm> synthetic_comms(int np, int k) {
  std::vector<SynthComm> out;
  std::vector<uint32_t> counter(static_cast<size_t>(np), 1);  // counter 0 is each rank's self
  for (int c = 0; c < k; ++c) {
    SynthComm s;
    if (c % 9 == 4) {
      for (int w = 0; w < np; ++w) s.members.push_back(w);  // a world-group duplicate
    } else {
      for (int w = 0; w < np; ++w)
        if (mix(static_cast<uint32_t>(c), static_cast<uint32_t>(w)) % 3 != 0) s.members.push_back(w);
      if (s.members.empty()) s.members.push_back(c % np);
      std::sort(s.members.begin(), s.members.end(), [c](int a, int b) {
        return mix(static_cast<uint32_t>(c) + 1000, static_cast<uint32_t>(a)) <
               mix(static_cast<uint32_t>(c) + 1000, static_cast<uint32_t>(b));
      });
    }
    s.inter = c % 11 == 10 && s.members.size() > 1;
    s.leader = s.members[0];
    if (s.inter) {
      // every member of an intercommunicator keys it itself
      for (int32_t m : s.members) s.member_counter.push_back(counter[static_cast<size_t>(m)]++);
    } else {
      s.counter = counter[static_cast<size_t>(s.leader)]++;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(UnifyMpi, SyntheticCommunicators) {
  const int k = 60;
  const auto comms = synthetic_comms(g_size, k);
  std::vector<CommRecord> recs;
  std::vector<int> which;  // record -> synthetic communicator (-1: world/self, -2: idup)
  CommRecord w;
  w.handle = 0x1000;
  w.local_rank = g_rank;
  w.size = g_size;
  w.flags = kCommWorld | kCommWorldGroup;
  recs.push_back(w);
  which.push_back(-1);
  CommRecord s;
  s.handle = 0x2000;
  s.key_rank = g_rank;
  s.size = 1;
  s.flags = kCommSelf;
  recs.push_back(s);
  which.push_back(-1);
  std::map<int, uint32_t> idups_of;  // parent record -> idups so far
  for (int c = 0; c < k; ++c) {
    const SynthComm& sc = comms[static_cast<size_t>(c)];
    auto it = std::find(sc.members.begin(), sc.members.end(), g_rank);
    if (it == sc.members.end()) continue;
    CommRecord r;
    r.handle = 0x10000 + 0x10 * static_cast<uint64_t>(c % 5);  // handles are reused
    r.created_tick = static_cast<uint64_t>(c) + 1;
    r.parent = 0;
    r.local_rank = static_cast<int32_t>(it - sc.members.begin());
    r.size = static_cast<int32_t>(sc.members.size());
    if (sc.inter) {
      r.flags = kCommInter;
      r.key_rank = g_rank;
      r.key_counter = sc.member_counter[static_cast<size_t>(it - sc.members.begin())];
    } else {
      r.key_rank = sc.leader;
      r.key_counter = sc.counter;
      if (r.size == 1) r.flags |= kCommSelf;
      if (sc.members.size() == static_cast<size_t>(g_size) && std::is_sorted(sc.members.begin(), sc.members.end()))
        r.flags |= kCommWorldGroup;
    }
    recs.push_back(r);
    which.push_back(c);
    if (c % 7 == 3) {  // an idup of it
      const int parent = static_cast<int>(recs.size()) - 1;
      CommRecord d;
      d.handle = 0x90000 + 0x10 * static_cast<uint64_t>(c);
      d.parent = parent;
      d.dup_ordinal = idups_of[parent]++;
      d.local_rank = r.local_rank;
      d.size = r.size;
      d.flags = kCommDup | (r.flags & (kCommWorldGroup | kCommSelf | kCommInter));
      recs.push_back(d);
      which.push_back(c);
    }
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  CommTable t = unify_communicators(recs, comm);
  CommTable t2 = unify_communicators(recs, comm);  // deterministic, and callable twice
  MPI_Comm_free(&comm);
  EXPECT_EQ(t.key, t2.key);
  ASSERT_EQ(t.group.size(), recs.size());
  EXPECT_EQ(t.world_size, g_size);
  int checked = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    SCOPED_TRACE("rank " + std::to_string(g_rank) + " record " + std::to_string(i));
    if (which[i] == -1) continue;
    const SynthComm& sc = comms[static_cast<size_t>(which[i])];
    if (sc.inter) {
      EXPECT_EQ(t.group[i], -1) << "intercommunicator groups are unknown";
      continue;
    }
    ASSERT_GE(t.group[i], 0) << "communicator " << which[i] << " unresolved";
    EXPECT_EQ(t.groups[static_cast<size_t>(t.group[i])], sc.members) << "communicator " << which[i];
    for (size_t l = 0; l < sc.members.size(); ++l)
      EXPECT_EQ(t.world_rank(i, static_cast<int32_t>(l)), sc.members[l]);
    ++checked;
  }
  EXPECT_GT(checked, 10);
  // Every rank got the same key for the same communicator: compare key sums per communicator.
  std::vector<uint64_t> mine(static_cast<size_t>(k), 0), maxk(static_cast<size_t>(k), 0), mink(static_cast<size_t>(k), 0);
  for (size_t i = 0; i < recs.size(); ++i)
    if (which[i] >= 0 && !(recs[i].flags & (kCommDup | kCommInter))) mine[static_cast<size_t>(which[i])] = t.key[i];
  // Signed 64-bit reductions: MPICH 4.0.2 gets MPI_MIN wrong on unsigned 64-bit integers,
  // and these keys (no idup/intercommunicator keys here) fit in 63 bits.
  std::vector<uint64_t> probe = mine;
  for (auto& x : probe)
    if (x == 0) x = static_cast<uint64_t>(LLONG_MAX);  // not a member: neutral for MIN
  MPI_Allreduce(mine.data(), maxk.data(), k, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(probe.data(), mink.data(), k, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  for (int c = 0; c < k; ++c)
    if (!comms[static_cast<size_t>(c)].inter) { EXPECT_EQ(maxk[static_cast<size_t>(c)], mink[static_cast<size_t>(c)]) << c; }
}

// The live path: CommRegistry::created on real communicators, then unification.
TEST(UnifyMpi, LiveRegistryMatchesMpiGroups) {
  CommRegistry reg;
  reg.init_world(g_rank, g_size);
  std::vector<std::pair<int, std::vector<int32_t>>> expected;  // record index -> world ranks
  uint64_t tick = 1;
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  auto track = [&](MPI_Comm parent, MPI_Comm c) {
    const int idx = reg.created(parent, c, 0, tick++);
    if (c == MPI_COMM_NULL) {
      EXPECT_EQ(idx, 0);
      return;
    }
    ASSERT_GT(idx, 0);
    int n = 0;
    MPI_Comm_size(c, &n);
    MPI_Group g;
    MPI_Comm_group(c, &g);
    std::vector<int> local(static_cast<size_t>(n)), world(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) local[static_cast<size_t>(i)] = i;
    MPI_Group_translate_ranks(g, n, local.data(), wg, world.data());
    MPI_Group_free(&g);
    expected.emplace_back(idx - 1, std::vector<int32_t>(world.begin(), world.end()));
  };
  MPI_Comm a, b, c, d, e, f, g2;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &a);
  track(MPI_COMM_WORLD, a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  track(MPI_COMM_WORLD, b);
  {
    MPI_Group sub;
    const int ranks[3] = {g_size - 1, 0, 1 % g_size};
    MPI_Group_incl(wg, g_size >= 3 ? 3 : 1, ranks, &sub);
    MPI_Comm_create(MPI_COMM_WORLD, sub, &c);
    MPI_Group_free(&sub);
    track(MPI_COMM_WORLD, c);
  }
  int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 1};
  MPI_Dims_create(g_size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &d);
  track(MPI_COMM_WORLD, d);
  MPI_Cart_sub(d, keep, &e);
  track(d, e);
  MPI_Comm_split(a, 0, g_rank, &f);  // a split of a split
  track(a, f);
  // free some: their records stay, and new communicators may reuse their handles
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_split(MPI_COMM_WORLD, g_rank < g_size / 2, g_rank, &g2);
  track(MPI_COMM_WORLD, g2);
  MPI_Comm self2;
  MPI_Comm_dup(MPI_COMM_SELF, &self2);
  track(MPI_COMM_SELF, self2);

  std::vector<CommRecord> recs = reg.snapshot();
  MPI_Comm tool;
  MPI_Comm_dup(MPI_COMM_WORLD, &tool);
  CommTable t = unify_communicators(recs, tool);
  MPI_Comm_free(&tool);
  ASSERT_EQ(t.group.size(), recs.size());
  EXPECT_EQ(t.key[0], kWorldCommKey);
  EXPECT_EQ(t.group[0], 0);
  for (const auto& [idx, world] : expected) {
    SCOPED_TRACE("rank " + std::to_string(g_rank) + " record " + std::to_string(idx));
    ASSERT_GE(t.group[static_cast<size_t>(idx)], 0);
    EXPECT_EQ(t.groups[static_cast<size_t>(t.group[static_cast<size_t>(idx)])], world);
  }
  // keys of live records are unique within the process
  std::vector<uint64_t> keys(t.key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
  for (MPI_Comm* p : {&c, &d, &e, &f, &g2, &self2})
    if (*p != MPI_COMM_NULL) MPI_Comm_free(p);
  MPI_Group_free(&wg);
}

// Communicators over the whole world made by a collective call (by-call keys) are flagged
// kCommWorldGroup like the broadcast-keyed ones, so unification maps them to group 0 locally:
// no claim goes to a key owner for them.
TEST(UnifyMpi, ByCallWorldGroupCommunicatorsNeedNoClaims) {
  CommRegistry reg;
  reg.init_world(g_rank, g_size);
  MPI_Comm split, cart, dup;
  // The flags the generated wrappers pass: split tells its communicators apart by colour,
  // cart_create makes one per call.
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_rank, &split);
  const int is = reg.created(MPI_COMM_WORLD, split, kCommColour, 1, 0);
  int dims[1] = {g_size}, periods[1] = {0};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  const int ic = reg.created(MPI_COMM_WORLD, cart, kCommOnePerCall, 2);
  MPI_Comm_dup(split, &dup);
  const int id = reg.created(split, dup, kCommDup, 3);
  ASSERT_GT(is, 0);
  ASSERT_GT(ic, 0);
  ASSERT_GT(id, 0);
  const std::vector<CommRecord> recs = reg.snapshot();
  for (int idx : {is, ic, id}) {
    SCOPED_TRACE("rank " + std::to_string(g_rank) + " record " + std::to_string(idx - 1));
    const CommRecord& r = recs[static_cast<size_t>(idx - 1)];
    if (g_size > 1) {
      EXPECT_TRUE(r.flags & kCommWorldGroup);
    }
    if (idx != id) {
      EXPECT_TRUE(r.flags & kCommByCall) << "not the by-call key path";
    }
  }
  if (g_size > 1) {
    CommTable local;
    std::vector<size_t> pending;
    assign_local_keys(recs, g_rank, g_size, &local, &pending);
    for (int idx : {is, ic, id}) {
      EXPECT_EQ(std::count(pending.begin(), pending.end(), static_cast<size_t>(idx - 1)), 0)
          << "record " << idx - 1 << " would send a claim";
      EXPECT_EQ(local.group[static_cast<size_t>(idx - 1)], 0) << "record " << idx - 1;
    }
  }
  MPI_Comm tool;
  MPI_Comm_dup(MPI_COMM_WORLD, &tool);
  const CommTable t = unify_communicators(recs, tool);
  MPI_Comm_free(&tool);
  if (g_size > 1) {
    for (int idx : {is, ic, id}) EXPECT_EQ(t.group[static_cast<size_t>(idx - 1)], 0) << "record " << idx - 1;
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&split);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("comm_unification_mpi_test: %d ranks, %s\n", g_size, worst ? "FAILED" : "passed");
  MPI_Finalize();
  return worst;
}
