// Finalize-time unification of the per-process communicator records (seed 003): every record
// gets a job-wide key and the world ranks of its group, including communicators the
// application has already freed. The replay rebuilds communicators from this table.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <map>
#include <vector>

#include "comm_registry.h"

namespace cpath {

constexpr uint64_t kWorldCommKey = ~0ull;

// Groups are stored once per process; group 0 is always MPI_COMM_WORLD's.
struct CommTable {
  std::vector<uint64_t> key;          // per record: job-wide key
  std::vector<int32_t> group;         // per record: index into groups (-1 = unknown); intercomm: local group
  // Per record: intercommunicators' remote group (index into groups), kNotInter for
  // intracommunicators, -1 when unknown (a group outside this job, a member's trace missing).
  std::vector<int32_t> remote_group;
  static constexpr int32_t kNotInter = -2;
  std::vector<std::vector<int32_t>> groups;  // world ranks in local-rank order; groups[0] = world
  std::map<std::vector<int32_t>, int32_t> group_index;  // groups -> index (interning)
  int world_size = 0;
  // World rank of `local` in record `rec`, or -1.
  int32_t world_rank(size_t rec, int32_t local) const {
    if (rec >= group.size() || group[rec] < 0 || local < 0) return -1;
    const auto& g = groups[static_cast<size_t>(group[rec])];
    return static_cast<size_t>(local) < g.size() ? g[static_cast<size_t>(local)] : -1;
  }
  // Point-to-point on record `rec` can be matched: its group is known and, on an
  // intercommunicator, its remote group too.
  bool peers_known(size_t rec) const {
    const int32_t rg = rec < remote_group.size() ? remote_group[rec] : kNotInter;
    return rec < group.size() && group[rec] >= 0 && (rg == kNotInter || rg >= 0);
  }
  // World rank of the point-to-point partner `peer` of an operation on record `rec`: on an
  // intercommunicator a rank of the remote group. -1 when unknown.
  int32_t peer_world_rank(size_t rec, int32_t peer) const {
    const int32_t rg = rec < remote_group.size() ? remote_group[rec] : kNotInter;
    if (rg == kNotInter) return world_rank(rec, peer);
    if (rg < 0 || peer < 0) return -1;
    const auto& g = groups[static_cast<size_t>(rg)];
    return static_cast<size_t>(peer) < g.size() ? g[static_cast<size_t>(peer)] : -1;
  }
};

// Key of a record from its own fields (not for idup records, which need their parent's key).
uint64_t record_key(const CommRecord& r);
uint64_t dup_key(uint64_t parent_key, uint32_t ordinal);
// Key of a communicator made by the `call`-th communicator-creating call on the parent,
// told apart from the others that call made by `which` (kCommByCall).
uint64_t call_key(uint64_t parent_key, uint32_t call, int32_t which);
// The process that assembles the group of the communicator with this key at finalize: the
// defining process for seed-003 keys, a hash of the key otherwise.
int key_owner(uint64_t key, const CommRecord& r, int world_size);

// Collective over `comm` (a duplicate of MPI_COMM_WORLD). O(P) counts per rank; each member
// sends (key, local rank, size, intercommunicator side) to the key's owner, which answers with
// the group (and an intercommunicator's other side): data proportional to the members.
CommTable unify_communicators(const std::vector<CommRecord>& records, MPI_Comm comm);

// The same without MPI, over the records of the ranks whose traces exist (the sequential
// reference on a partial job): `records[i]` belongs to world rank `world_ranks[i]`. Groups
// with a member missing stay unknown (-1).
std::vector<CommTable> unify_offline(const std::vector<const std::vector<CommRecord>*>& records,
                                     const std::vector<int>& world_ranks, int world_size);

// The part of unification that needs no communication (idup keys, world/self groups); used
// directly by tests on synthetic inputs. `pending` receives the records that need the
// exchange with their defining process.
void assign_local_keys(const std::vector<CommRecord>& records, int world_rank, int world_size, CommTable* t,
                       std::vector<size_t>* pending);
int32_t intern_group(CommTable* t, std::vector<int32_t> ranks);

}  // namespace cpath
