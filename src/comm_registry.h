// Communicator tracking during the run (seed 003's guarantees: one O(1) record per
// communicator per process, groups reconstructed at finalize by comm_unification.h).
//
// A communicator needs a key every member agrees on. Calls that are collective over their
// parent (dup, split, split_type, create, the topology constructors) give it without any
// communication: the members agree on the parent's key and on how many communicator-creating
// calls the parent has seen, and a discriminator tells apart the communicators one call makes
// (split's colour; the world rank of local rank 0, found by a local group translation, for
// split_type, create and cart_sub; nothing for the topology constructors, which make one).
// Such a key (kCommByCall) is a 64-bit hash stored in key_rank:key_counter. Only
// MPI_Comm_create_group (collective over the new group alone), MPI_Intercomm_merge (whose
// two groups count their calls apart) and parents created outside libcpath's view keep seed
// 003's scheme: (world rank of local rank 0, its counter), shared with one broadcast.
// Intercommunicators between two groups of this job are keyed by their pair of groups
// (inter_key); those to another job keep a key of their own process (approximated).
// Known limit: two threads creating intercommunicators over the same pair of groups at once
// (MPI_THREAD_MULTIPLE) may number them in different orders on different processes.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "thread_state.h"

namespace cpath {

enum : unsigned {
  kCommInter = 1u << 0,      // intercommunicator (kCommInterKnown: both groups in this job)
  kCommGroupOnly = 1u << 1,  // created by MPI_Comm_create_group
  kCommDup = 1u << 2,        // MPI_Comm_dup/idup: same group as the parent, key derived from it
  kCommWorldGroup = 1u << 3, // same group, same order as MPI_COMM_WORLD
  kCommSelf = 1u << 4,       // single process
  kCommWorld = 1u << 5,      // MPI_COMM_WORLD itself
  kCommIdupCall = 1u << 6,   // (creation flag only) made by MPI_Comm_idup: never query it
  kCommByCall = 1u << 7,     // key_rank:key_counter is a hash of (parent key, call number, discriminator)
  kCommOnePerCall = 1u << 8, // (creation flag only) the call makes at most one communicator
  kCommColour = 1u << 9,     // (creation flag only) MPI_Comm_split: `colour` tells its communicators apart
  kCommMergeCall = 1u << 10, // (creation flag only) MPI_Intercomm_merge
  // Intercommunicator whose two groups are in this job (their world ranks known at creation):
  // its key names the pair of groups, so both sides agree on it, and this process is on side 1
  // (the group whose local rank 0 has the larger world rank) when kCommInterSide1 is set.
  kCommInterKnown = 1u << 11,
  kCommInterSide1 = 1u << 12,
};
constexpr unsigned kCommCreationOnly = kCommIdupCall | kCommOnePerCall | kCommColour | kCommMergeCall;

struct CommRecord {
  uint64_t handle = 0;        // MPI_Comm bits at creation
  uint64_t created_tick = 0;  // resolves handles the MPI library reuses after MPI_Comm_free
  int32_t parent = -1;        // record index of the parent communicator
  int32_t key_rank = -1;      // world rank of the defining process (local rank 0); kCommByCall: key bits 63..32
  uint32_t key_counter = 0;   // its counter; kCommByCall: key bits 31..0
  int32_t local_rank = 0;
  int32_t size = 1;
  int32_t remote_size = 0;    // intercommunicators only
  uint32_t flags = 0;
  uint32_t dup_ordinal = 0;   // n-th dup/idup of the parent (kCommDup)
  uint32_t creator_call = 0;  // call id that created it
  uint32_t call = 0;          // kCommByCall: number of the creating call among those made on the parent
  int32_t which = 0;          // kCommByCall: split's colour, or world rank of local rank 0 (0: one per call)
};

class CommRegistry {
 public:
  void init_world(int world_rank, int world_size);
  // Registers what a communicator-creating call made on this process (also when it made
  // MPI_COMM_NULL: the call still counts on the parent). Returns the record index + 1, or 0
  // for MPI_COMM_NULL. `colour` is split's colour (with kCommColour).
  int created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick, int64_t colour = 0);
  std::vector<CommRecord> snapshot();
  // Without blocking or allocating, for the crash-time trace writer: the records, or nullptr
  // when another thread is registering one right now. On success the registry's lock stays
  // held until end_peek(), so no registration can reallocate the records while the writer
  // reads them (a thread that creates a communicator meanwhile waits; the process is ending).
  const CommRecord* try_peek(size_t* n);
  void end_peek() { mu_.unlock(); }
  // Record index of the live communicator with this handle, or -1 (not created by a wrapped call).
  int record_of(uint64_t handle) {
    std::lock_guard<std::mutex> g(mu_);
    return find_live(handle);
  }
  int world_rank() const { return world_rank_; }
  // Changes whenever a handle may start naming another record (every registration: there is
  // no free hook, and a freed handle only means something else once a new communicator reuses
  // it). Lets callers cache record_of() results without the lock.
  uint32_t generation() const { return generation_.load(std::memory_order_acquire); }

  // MPI_COMM_WORLD's group (from MPI_Init on), for translating a group to world ranks.
  MPI_Group world_group() const { return world_group_; }

 private:
  int find_live(uint64_t handle);  // latest record with this handle
  void append(const CommRecord& r, uint64_t key);
  int created_by_broadcast(CommRecord r, MPI_Comm c);
  // Intercommunicator between two groups of this job: key and side from the world ranks of
  // both groups (local group translations, no communication). False when a group is not in
  // MPI_COMM_WORLD (MPI_Comm_spawn, connect/accept).
  bool inter_key(MPI_Comm c, uint64_t* key, bool* side1);
  std::mutex mu_;
  std::vector<CommRecord> records_;
  std::vector<uint64_t> keys_;   // per record: its job-wide key (comm_unification.h)
  std::vector<uint32_t> calls_;  // per record: communicator-creating calls made on it
  // Latest record per handle and idup count per parent: programs that create and free
  // communicators by the hundred thousand must not pay a scan per creation.
  std::unordered_map<uint64_t, int> live_;
  std::unordered_map<int, uint32_t> idups_;
  std::unordered_map<uint64_t, uint32_t> inter_pairs_;  // intercommunicators made per pair of groups
  std::atomic<uint32_t> generation_{0};
  uint32_t defined_ = 0;  // communicators this process defined (its key counter)
  int world_rank_ = 0;
  int world_size_ = 1;
  MPI_Group world_group_ = MPI_GROUP_NULL;
};

CommRegistry& comm_registry();
int comm_created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick, int64_t colour = 0);

// The list MPI_Win_post and MPI_Win_start record (docs/trace-format.md): whether the assertion
// has MPI_MODE_NOCHECK (1 or 0), then the group's members as world ranks (a member outside
// MPI_COMM_WORLD: -1). *list points into ts's scratch space; returns its length (0 for
// MPI_GROUP_NULL, a failed call).
int rma_group_list(ThreadState* ts, MPI_Group group, int assert_bits, const uint64_t** list);

}  // namespace cpath
