// Communicator tracking during the run (seed 003): one O(1) record per communicator per
// process, keyed by (world rank of the communicator's local rank 0, that process's counter of
// communicators it defined). The key is shared with one broadcast at creation; nothing else
// is translated while the application runs. Groups are reconstructed at finalize
// (comm_unification.h).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cpath {

enum : unsigned {
  kCommInter = 1u << 0,      // intercommunicator (local group recorded; analysis approximates)
  kCommGroupOnly = 1u << 1,  // created by MPI_Comm_create_group
  kCommDup = 1u << 2,        // MPI_Comm_dup/idup: same group as the parent, key derived from it
  kCommWorldGroup = 1u << 3, // same group, same order as MPI_COMM_WORLD
  kCommSelf = 1u << 4,       // single process
  kCommWorld = 1u << 5,      // MPI_COMM_WORLD itself
  kCommIdupCall = 1u << 6,   // (creation flag only) made by MPI_Comm_idup: never query it
};

struct CommRecord {
  uint64_t handle = 0;        // MPI_Comm bits at creation
  uint64_t created_tick = 0;  // resolves handles the MPI library reuses after MPI_Comm_free
  int32_t parent = -1;        // record index of the parent communicator
  int32_t key_rank = -1;      // world rank of the defining process (local rank 0)
  uint32_t key_counter = 0;   // its counter
  int32_t local_rank = 0;
  int32_t size = 1;
  int32_t remote_size = 0;    // intercommunicators only
  uint32_t flags = 0;
  uint32_t dup_ordinal = 0;   // n-th dup/idup of the parent (kCommDup)
  uint32_t creator_call = 0;  // call id that created it
};

class CommRegistry {
 public:
  void init_world(int world_rank, int world_size);
  // Registers a new communicator; returns its record index + 1, or 0 for MPI_COMM_NULL.
  int created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick);
  std::vector<CommRecord> snapshot();
  // Record index of the live communicator with this handle, or -1 (not created by a wrapped call).
  int record_of(uint64_t handle) {
    std::lock_guard<std::mutex> g(mu_);
    return find_live(handle);
  }
  int world_rank() const { return world_rank_; }

 private:
  int find_live(uint64_t handle);  // latest record with this handle
  void append(const CommRecord& r);
  std::mutex mu_;
  std::vector<CommRecord> records_;
  // Latest record per handle and idup count per parent: programs that create and free
  // communicators by the hundred thousand must not pay a scan per creation.
  std::unordered_map<uint64_t, int> live_;
  std::unordered_map<int, uint32_t> idups_;
  uint32_t defined_ = 0;  // communicators this process defined (its key counter)
  int world_rank_ = 0;
  int world_size_ = 1;
};

CommRegistry& comm_registry();
int comm_created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick);

}  // namespace cpath
