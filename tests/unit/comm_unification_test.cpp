// Communicator unification on synthetic inputs (src/comm_unification.h): record keys, idup
// keys, group interning, the communication-free part (assign_local_keys) and
// unify_communicators over MPI_COMM_SELF in a single process. The multi-process exchange is
// covered by comm_unification_mpi_test (4 ranks under mpirun).
#include <gtest/gtest.h>
#include <mpi.h>

#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <vector>

#include "comm_registry.h"
#include "comm_unification.h"
#include "mpi_test_env.h"

using namespace cpath;

namespace {

using cpath_test::ensure_mpi;

CommRecord world_rec(int me, int np) {
  CommRecord r;
  r.handle = 0x1000;
  r.key_rank = 0;
  r.key_counter = 0;
  r.local_rank = me;
  r.size = np;
  r.flags = kCommWorld | kCommWorldGroup | (np == 1 ? static_cast<uint32_t>(kCommSelf) : 0u);
  return r;
}

CommRecord self_rec(int me) {
  CommRecord r;
  r.handle = 0x2000;
  r.key_rank = me;
  r.key_counter = 0;
  r.local_rank = 0;
  r.size = 1;
  r.flags = kCommSelf;
  return r;
}

CommRecord rec(uint64_t handle, int parent, int key_rank, uint32_t counter, int local, int size, uint32_t flags = 0) {
  CommRecord r;
  r.handle = handle;
  r.parent = parent;
  r.key_rank = key_rank;
  r.key_counter = counter;
  r.local_rank = local;
  r.size = size;
  r.flags = flags;
  return r;
}

CommRecord idup_rec(uint64_t handle, int parent, uint32_t ordinal, const CommRecord& p) {
  CommRecord r;
  r.handle = handle;
  r.parent = parent;
  r.dup_ordinal = ordinal;
  r.local_rank = p.local_rank;
  r.size = p.size;
  r.flags = kCommDup | (p.flags & (kCommWorldGroup | kCommSelf | kCommInter));
  return r;
}

}  // namespace

TEST(CommKeys, RecordKey) {
  EXPECT_EQ(record_key(world_rec(3, 8)), kWorldCommKey);
  EXPECT_EQ(record_key(rec(1, 0, 5, 7, 0, 2)), (5ull << 32) | 7u);
  EXPECT_EQ(record_key(self_rec(9)), 9ull << 32);
  // distinct (rank, counter) pairs give distinct keys, none equal to the world key
  std::set<uint64_t> keys;
  for (int r = 0; r < 64; ++r)
    for (uint32_t c = 0; c < 64; ++c) keys.insert(record_key(rec(1, 0, r, c, 0, 2)));
  EXPECT_EQ(keys.size(), 64u * 64u);
  EXPECT_EQ(keys.count(kWorldCommKey), 0u);
}

TEST(CommKeys, IdupKeyIsDeterministicAndDistinct) {
  const uint64_t parents[] = {kWorldCommKey, (0ull << 32) | 1, (3ull << 32) | 2, (3ull << 32) | 3};
  std::set<uint64_t> keys;
  for (uint64_t p : parents)
    for (uint32_t o = 0; o < 100; ++o) {
      const uint64_t k = dup_key(p, o);
      EXPECT_EQ(k, dup_key(p, o)) << "deterministic";
      EXPECT_NE(k, kWorldCommKey);
      EXPECT_TRUE(k >> 63) << "idup keys live in the upper half, apart from (rank, counter) keys";
      keys.insert(k);
    }
  EXPECT_EQ(keys.size(), 400u) << "no collisions among parents x ordinals";
  // an idup of an idup: still distinct from its parent
  const uint64_t k1 = dup_key(kWorldCommKey, 0);
  EXPECT_NE(dup_key(k1, 0), k1);
}

TEST(CommGroups, InternDeduplicates) {
  CommTable t;
  t.groups.push_back({0, 1, 2, 3});
  EXPECT_EQ(intern_group(&t, {0, 1, 2, 3}), 0);
  EXPECT_EQ(intern_group(&t, {2, 0}), 1);
  EXPECT_EQ(intern_group(&t, {0, 2}), 2) << "order matters: local rank order";
  EXPECT_EQ(intern_group(&t, {2, 0}), 1);
  EXPECT_EQ(intern_group(&t, {}), 3);
  EXPECT_EQ(t.groups.size(), 4u);
}

TEST(CommGroups, WorldRankLookup) {
  CommTable t;
  t.groups = {{0, 1, 2, 3}, {3, 1}};
  t.group = {0, 1, -1};
  EXPECT_EQ(t.world_rank(0, 2), 2);
  EXPECT_EQ(t.world_rank(1, 0), 3);
  EXPECT_EQ(t.world_rank(1, 1), 1);
  EXPECT_EQ(t.world_rank(1, 2), -1) << "local rank out of range";
  EXPECT_EQ(t.world_rank(1, -1), -1) << "ANY_SOURCE / PROC_NULL";
  EXPECT_EQ(t.world_rank(2, 0), -1) << "unknown group";
  EXPECT_EQ(t.world_rank(7, 0), -1) << "no such record";
}

// The part that needs no communication: world, self, world-group duplicates, size-1
// communicators, idups (inheriting the parent's key and group), intercomms (unknown group);
// everything else is left pending for the exchange.
TEST(AssignLocalKeys, SyntheticRecords) {
  const int me = 2, np = 4;
  std::vector<CommRecord> r;
  r.push_back(world_rec(me, np));                                          // 0 world
  r.push_back(self_rec(me));                                               // 1 self
  r.push_back(rec(0x3000, 0, 0, 1, me, np, kCommWorldGroup));              // 2 dup of world
  r.push_back(rec(0x4000, 0, 2, 1, 0, 2));                                 // 3 split, I lead
  r.push_back(rec(0x5000, 0, 3, 4, 1, 3));                                 // 4 split, rank 3 leads
  r.push_back(rec(0x6000, 0, me, 2, 0, 1, kCommSelf));                     // 5 a size-1 split
  r.push_back(idup_rec(0x7000, 2, 0, r[2]));                               // 6 idup of the dup
  r.push_back(idup_rec(0x8000, 2, 1, r[2]));                               // 7 second idup of it
  r.push_back(idup_rec(0x9000, 4, 0, r[4]));                               // 8 idup of a pending one
  r.push_back(rec(0xa000, 0, me, 3, 0, 2, kCommInter));                    // 9 intercomm
  r.push_back(idup_rec(0xb000, 0, 0, r[0]));                               // 10 idup of world
  r.push_back(rec(0x3000, 0, 0, 5, me, np, kCommWorldGroup));              // 11 handle reused
  CommTable t;
  std::vector<size_t> pending;
  assign_local_keys(r, me, np, &t, &pending);
  ASSERT_EQ(t.key.size(), r.size());
  ASSERT_EQ(t.group.size(), r.size());
  EXPECT_EQ(t.world_size, np);
  ASSERT_FALSE(t.groups.empty());
  EXPECT_EQ(t.groups[0], (std::vector<int32_t>{0, 1, 2, 3}));

  EXPECT_EQ(t.key[0], kWorldCommKey);
  EXPECT_EQ(t.group[0], 0);
  EXPECT_EQ(t.key[1], static_cast<uint64_t>(me) << 32);
  ASSERT_GE(t.group[1], 0);
  EXPECT_EQ(t.groups[static_cast<size_t>(t.group[1])], (std::vector<int32_t>{me}));
  EXPECT_EQ(t.key[2], 1u);
  EXPECT_EQ(t.group[2], 0);
  EXPECT_EQ(t.key[3], (2ull << 32) | 1);
  EXPECT_EQ(t.group[3], -1) << "pending until the exchange";
  EXPECT_EQ(t.key[4], (3ull << 32) | 4);
  EXPECT_EQ(t.group[4], -1);
  EXPECT_EQ(t.key[5], (2ull << 32) | 2);
  EXPECT_EQ(t.group[5], t.group[1]) << "size-1 groups are interned once";
  EXPECT_EQ(t.key[6], dup_key(t.key[2], 0));
  EXPECT_EQ(t.group[6], 0) << "an idup has its parent's group";
  EXPECT_EQ(t.key[7], dup_key(t.key[2], 1));
  EXPECT_NE(t.key[6], t.key[7]);
  EXPECT_EQ(t.key[8], dup_key(t.key[4], 0));
  EXPECT_EQ(t.group[8], -1);
  EXPECT_EQ(t.key[9], (2ull << 32) | 3);
  EXPECT_EQ(t.group[9], -1) << "intercommunicator: group unknown";
  EXPECT_EQ(t.key[10], dup_key(kWorldCommKey, 0));
  EXPECT_EQ(t.group[10], 0);
  EXPECT_EQ(t.key[11], 5u);
  EXPECT_NE(t.key[11], t.key[2]) << "a reused handle is a new communicator";
  EXPECT_EQ(pending, (std::vector<size_t>{3, 4}));

  // Deterministic: the same input gives the same table, and no pending list is fine.
  CommTable t2;
  assign_local_keys(r, me, np, &t2, nullptr);
  EXPECT_EQ(t2.key, t.key);
  EXPECT_EQ(t2.groups, t.groups);
  // All keys distinct.
  std::set<uint64_t> keys(t.key.begin(), t.key.end());
  EXPECT_EQ(keys.size(), t.key.size());
}

// Every member computes the same idup key for the same (parent, ordinal): member processes
// see different record lists but agree.
TEST(AssignLocalKeys, IdupKeysAgreeAcrossProcesses) {
  const int np = 3;
  std::vector<uint64_t> keys;
  for (int me = 0; me < np; ++me) {
    std::vector<CommRecord> r;
    r.push_back(world_rec(me, np));
    r.push_back(self_rec(me));
    // a process-private size-1 communicator first on some ranks only: record indices differ
    if (me == 1) r.push_back(rec(0x9999, 0, me, 1, 0, 1, kCommSelf));
    r.push_back(rec(0x4000, 0, 0, 1, me, np, kCommWorldGroup));  // dup of world, rank 0's #1
    const int dup = static_cast<int>(r.size()) - 1;
    r.push_back(idup_rec(0x5000, dup, 0, r.back()));
    r.push_back(idup_rec(0x6000, dup, 1, r[static_cast<size_t>(dup)]));
    CommTable t;
    assign_local_keys(r, me, np, &t, nullptr);
    keys.push_back(t.key[r.size() - 2]);
    keys.push_back(t.key[r.size() - 1]);
  }
  for (int me = 1; me < np; ++me) {
    EXPECT_EQ(keys[2 * me], keys[0]);
    EXPECT_EQ(keys[2 * me + 1], keys[1]);
  }
  EXPECT_NE(keys[0], keys[1]);
}

// unify_communicators over MPI_COMM_SELF (one process): the world and self groups are known;
// a record claiming a larger group that no other process completes stays unknown instead of
// holding -1 ranks; a record whose key rank is out of range is left unknown.
TEST(UnifyCommunicators, SingleProcess) {
  ensure_mpi();
  std::vector<CommRecord> r;
  r.push_back(world_rec(0, 1));
  r.push_back(self_rec(0));
  r.push_back(rec(0x3000, 0, 0, 1, 0, 1, kCommSelf));  // a dup of self
  r.push_back(rec(0x4000, 0, 0, 2, 0, 3));             // claims 3 members: never completed
  r.push_back(rec(0x5000, 0, 7, 1, 1, 2));             // defined by a rank that does not exist
  r.push_back(idup_rec(0x6000, 3, 0, r[3]));           // idup of the incomplete one
  r.push_back(idup_rec(0x7000, 2, 0, r[2]));           // idup of a size-1 one
  CommTable t = unify_communicators(r, MPI_COMM_SELF);
  ASSERT_EQ(t.group.size(), r.size());
  EXPECT_EQ(t.world_size, 1);
  EXPECT_EQ(t.key[0], kWorldCommKey);
  EXPECT_EQ(t.group[0], 0);
  EXPECT_EQ(t.groups[0], (std::vector<int32_t>{0}));
  ASSERT_GE(t.group[1], 0);
  EXPECT_EQ(t.groups[static_cast<size_t>(t.group[1])], (std::vector<int32_t>{0}));
  EXPECT_EQ(t.group[2], t.group[1]);
  EXPECT_EQ(t.group[3], -1);
  EXPECT_EQ(t.group[4], -1);
  EXPECT_EQ(t.group[5], -1);
  EXPECT_EQ(t.group[6], t.group[2]);
  EXPECT_EQ(t.world_rank(3, 0), -1);
  EXPECT_EQ(t.world_rank(1, 0), 0);
  for (const auto& g : t.groups)
    for (int32_t x : g) { EXPECT_GE(x, 0) << "no group holds an unknown rank"; }
}

namespace {

// Records of communicators keyed by their creating call, as rank `me` of a 4-rank job holds
// them: world, self, A = split of world by parity (call 0; local order descending world rank),
// B = dup of A, C = a split of world with one member per rank... (call 1, colour = rank: size 1).
std::vector<CommRecord> by_call_records(int me) {
  std::vector<CommRecord> r = {world_rec(me, 4), self_rec(me)};
  const uint64_t wk = kWorldCommKey;
  CommRecord a;
  a.handle = 0x3000;
  a.parent = 0;
  a.call = 0;
  a.which = me % 2;
  const uint64_t ka = call_key(wk, 0, me % 2);
  a.key_rank = static_cast<int32_t>(static_cast<uint32_t>(ka >> 32));
  a.key_counter = static_cast<uint32_t>(ka);
  a.size = 2;
  a.local_rank = me >= 2 ? 0 : 1;  // descending: {2, 0} and {3, 1}
  a.flags = kCommByCall;
  r.push_back(a);
  r.push_back(idup_rec(0x4000, 2, 0, a));
  return r;
}

}  // namespace

// Keys from the creating call: deterministic, distinct per call and per discriminator, never
// equal to seed-003 keys (top bit) or the world's.
// Every rank computes its keys alone, so they must not depend on anything of the process
// (addresses, a seeded hash): a separate process must get the same ones. A forked child
// computes them and pipes them back.
static std::vector<uint64_t> call_keys_in_child() {
  int fd[2];
  if (pipe(fd) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    for (uint32_t call = 0; call < 50; ++call)
      for (int32_t which = -3; which < 50; ++which) {
        const uint64_t k = call_key(kWorldCommKey, call, which);
        if (write(fd[1], &k, sizeof k) != static_cast<ssize_t>(sizeof k)) _exit(1);
      }
    _exit(0);
  }
  close(fd[1]);
  std::vector<uint64_t> keys;
  uint64_t k;
  while (read(fd[0], &k, sizeof k) == static_cast<ssize_t>(sizeof k)) keys.push_back(k);
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return keys;
}

TEST(CommKeys, CallKeys) {
  std::set<uint64_t> seen;
  const std::vector<uint64_t> other = call_keys_in_child();
  ASSERT_EQ(other.size(), 50u * 53u) << "the child process did not report its keys";
  size_t i = 0;
  for (uint32_t call = 0; call < 50; ++call)
    for (int32_t which = -3; which < 50; ++which) {
      const uint64_t k = call_key(kWorldCommKey, call, which);
      EXPECT_EQ(k, other[i++]) << "another process computed a different key for call " << call << " " << which;
      EXPECT_TRUE(k >> 63);
      EXPECT_NE(k, kWorldCommKey);
      EXPECT_TRUE(seen.insert(k).second) << call << " " << which;
    }
  EXPECT_NE(call_key(1, 0, 0), call_key(2, 0, 0)) << "the parent's key matters";
}

// Unification without MPI over every rank's records: the same groups the live exchange gives.
TEST(UnifyOffline, AllRanks) {
  std::vector<std::vector<CommRecord>> recs;
  for (int me = 0; me < 4; ++me) recs.push_back(by_call_records(me));
  std::vector<const std::vector<CommRecord>*> ptrs;
  for (auto& v : recs) ptrs.push_back(&v);
  std::vector<CommTable> t = unify_offline(ptrs, {0, 1, 2, 3}, 4);
  ASSERT_EQ(t.size(), 4u);
  for (int me = 0; me < 4; ++me) {
    SCOPED_TRACE(me);
    const CommTable& c = t[static_cast<size_t>(me)];
    EXPECT_EQ(c.group[0], 0);
    const std::vector<int32_t> want = me % 2 ? std::vector<int32_t>{3, 1} : std::vector<int32_t>{2, 0};
    ASSERT_GE(c.group[2], 0);
    EXPECT_EQ(c.groups[static_cast<size_t>(c.group[2])], want);
    ASSERT_GE(c.group[3], 0) << "the dup takes its parent's group";
    EXPECT_EQ(c.groups[static_cast<size_t>(c.group[3])], want);
    EXPECT_EQ(c.world_rank(2, 0), want[0]);
  }
}

// A job whose rank 3 left no trace: the communicators it belonged to cannot be rebuilt (their
// groups stay unknown), the others still are.
TEST(UnifyOffline, MissingRankLeavesItsGroupsUnknown) {
  std::vector<std::vector<CommRecord>> recs;
  for (int me = 0; me < 3; ++me) recs.push_back(by_call_records(me));
  std::vector<const std::vector<CommRecord>*> ptrs;
  for (auto& v : recs) ptrs.push_back(&v);
  std::vector<CommTable> t = unify_offline(ptrs, {0, 1, 2}, 4);
  EXPECT_EQ(t[0].group[2], t[0].group[2]);
  ASSERT_GE(t[0].group[2], 0);
  EXPECT_EQ(t[0].groups[static_cast<size_t>(t[0].group[2])], (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(t[1].group[2], -1) << "{3, 1} lost rank 3";
  EXPECT_EQ(t[1].group[3], -1);
  EXPECT_EQ(t[1].group[0], 0) << "the world is known without anyone's records";
}

// Members that disagree (two communicators hashed to one key, or a miscounted call) give no
// group rather than a wrong one.
TEST(UnifyOffline, InconsistentClaimsGiveNoGroup) {
  std::vector<std::vector<CommRecord>> recs;
  for (int me = 0; me < 4; ++me) recs.push_back(by_call_records(me));
  recs[1][2].local_rank = 0;  // rank 1 claims rank 3's slot in {3, 1}
  std::vector<const std::vector<CommRecord>*> ptrs;
  for (auto& v : recs) ptrs.push_back(&v);
  std::vector<CommTable> t = unify_offline(ptrs, {0, 1, 2, 3}, 4);
  EXPECT_EQ(t[3].group[2], -1);
  EXPECT_EQ(t[1].group[2], -1);
  ASSERT_GE(t[0].group[2], 0);
  recs[1][2].local_rank = 1;
  recs[3][2].size = 3;  // size mismatch
  t = unify_offline(ptrs, {0, 1, 2, 3}, 4);
  EXPECT_EQ(t[1].group[2], -1);
}

// An intercommunicator between {2, 0} and {3, 1}: both sides carry one key (the pair of
// groups), each side's local group and the other side as its remote group; world peers of
// point-to-point on it are ranks of the remote group. A missing member leaves the remote group
// of the other side unknown, never wrong.
TEST(UnifyOffline, IntercommunicatorSides) {
  auto records = [](int me) {
    std::vector<CommRecord> r = by_call_records(me);
    CommRecord x;
    x.handle = 0x5000;
    x.parent = 2;
    const uint64_t k = call_key(0x1234, 7, 0);
    x.key_rank = static_cast<int32_t>(static_cast<uint32_t>(k >> 32));
    x.key_counter = static_cast<uint32_t>(k);
    x.size = 2;
    x.remote_size = 2;
    x.local_rank = me >= 2 ? 0 : 1;
    x.flags = kCommInter | kCommInterKnown | kCommByCall | (me % 2 ? static_cast<uint32_t>(kCommInterSide1) : 0u);
    r.push_back(x);
    return r;
  };
  std::vector<std::vector<CommRecord>> recs;
  for (int me = 0; me < 4; ++me) recs.push_back(records(me));
  std::vector<const std::vector<CommRecord>*> ptrs;
  for (auto& v : recs) ptrs.push_back(&v);
  std::vector<CommTable> t = unify_offline(ptrs, {0, 1, 2, 3}, 4);
  for (int me = 0; me < 4; ++me) {
    SCOPED_TRACE(me);
    const CommTable& c = t[static_cast<size_t>(me)];
    const std::vector<int32_t> mine = me % 2 ? std::vector<int32_t>{3, 1} : std::vector<int32_t>{2, 0};
    const std::vector<int32_t> other = me % 2 ? std::vector<int32_t>{2, 0} : std::vector<int32_t>{3, 1};
    ASSERT_GE(c.group[4], 0);
    ASSERT_GE(c.remote_group[4], 0);
    EXPECT_EQ(c.groups[static_cast<size_t>(c.group[4])], mine);
    EXPECT_EQ(c.groups[static_cast<size_t>(c.remote_group[4])], other);
    EXPECT_EQ(c.peer_world_rank(4, 0), other[0]);
    EXPECT_EQ(c.peer_world_rank(4, 1), other[1]);
    EXPECT_EQ(c.remote_group[2], CommTable::kNotInter);
    EXPECT_EQ(c.peer_world_rank(2, 0), mine[0]) << "an intracommunicator's peer is in its own group";
  }
  ptrs.pop_back();  // rank 3's trace is missing: side {3, 1} is unknown
  t = unify_offline(ptrs, {0, 1, 2}, 4);
  EXPECT_EQ(t[0].remote_group[4], -1);
  EXPECT_EQ(t[0].peer_world_rank(4, 0), -1);
  EXPECT_EQ(t[1].group[4], -1);
  ASSERT_GE(t[1].remote_group[4], 0);
  EXPECT_EQ(t[1].groups[static_cast<size_t>(t[1].remote_group[4])], (std::vector<int32_t>{2, 0}));
}
