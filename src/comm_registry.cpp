#include "comm_registry.h"

#include "comm_topology.h"
#include "record_writer.h"

namespace cpath {

CommRegistry& comm_registry() {
  static CommRegistry r;
  return r;
}

int comm_created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick) {
  return comm_registry().created(parent, c, flags, tick);
}

void CommRegistry::init_world(int world_rank, int world_size) {
  std::lock_guard<std::mutex> g(mu_);
  world_rank_ = world_rank;
  world_size_ = world_size;
  records_.clear();
  topology_reset();
  live_.clear();
  idups_.clear();
  CommRecord w;
  w.handle = bits_Comm(MPI_COMM_WORLD);
  w.key_rank = 0;
  w.key_counter = 0;
  w.local_rank = world_rank;
  w.size = world_size;
  w.flags = kCommWorld | kCommWorldGroup | (world_size == 1 ? static_cast<uint32_t>(kCommSelf) : 0u);
  append(w);
  CommRecord s;
  s.handle = bits_Comm(MPI_COMM_SELF);
  s.key_rank = world_rank;
  s.local_rank = 0;
  s.size = 1;
  s.flags = kCommSelf;
  // Counter 0 of every process is reserved for its MPI_COMM_SELF; world is (0, 0) but flagged.
  s.key_counter = 0;
  append(s);
  defined_ = 1;
}

int CommRegistry::find_live(uint64_t handle) {
  auto it = live_.find(handle);
  return it == live_.end() ? -1 : it->second;
}

void CommRegistry::append(const CommRecord& r) {
  live_[r.handle] = static_cast<int>(records_.size());
  records_.push_back(r);
}

int CommRegistry::created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick) {
  if (c == MPI_COMM_NULL) return 0;
  CommRecord r;
  r.handle = bits_Comm(c);
  r.created_tick = tick;
  r.flags = flags & ~kCommIdupCall;
  if (r.flags & kCommDup) {
    // A duplicate has the parent's group, and every member of the parent duplicates it in the
    // same order, so (parent, ordinal) identifies it at finalize with no communication now:
    // no broadcast, and idup's communicator, unusable before its request completes, is not
    // even queried. Programs that dup and free communicators by the hundred thousand pay
    // nothing for it.
    std::lock_guard<std::mutex> g(mu_);
    r.parent = find_live(bits_Comm(parent));
    if (r.parent >= 0 || (flags & kCommIdupCall)) {
      r.dup_ordinal = idups_[r.parent]++;
      if (r.parent >= 0) {
        const CommRecord& p = records_[static_cast<size_t>(r.parent)];
        r.local_rank = p.local_rank;
        r.size = p.size;
        r.flags |= p.flags & (kCommWorldGroup | kCommSelf | kCommInter);
        r.remote_size = p.remote_size;
      }
      append(r);
      return static_cast<int>(records_.size());
    }
    // Parent unknown (created by a call libcpath does not wrap): the ordinary way below.
    r.flags &= ~kCommDup;
  }
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter) {
    r.flags |= kCommInter;
    PMPI_Comm_remote_size(c, &r.remote_size);
  }
  PMPI_Comm_rank(c, &r.local_rank);
  PMPI_Comm_size(c, &r.size);
  {
    std::lock_guard<std::mutex> g(mu_);
    r.parent = find_live(bits_Comm(parent));
  }
  const bool needs_bcast = !(r.flags & kCommInter) && r.size > 1;
  int key[2] = {-1, 0};
  if (r.local_rank == 0 || r.size == 1 || (r.flags & kCommInter)) {
    std::lock_guard<std::mutex> g(mu_);
    key[0] = world_rank_;
    key[1] = static_cast<int>(defined_++);
  }
  if (needs_bcast) PMPI_Bcast(key, 2, MPI_INT, 0, c);
  r.key_rank = key[0];
  r.key_counter = static_cast<uint32_t>(key[1]);
  if (r.size == 1) r.flags |= kCommSelf;
  if (!(r.flags & kCommInter) && r.size == world_size_ && r.size > 1) {
    int cmp = MPI_UNEQUAL;
    PMPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) r.flags |= kCommWorldGroup;
  }
  int index = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    append(r);
    index = static_cast<int>(records_.size());
  }
  capture_topology(index - 1, c);  // neighbour lists, for neighbourhood collectives
  return index;
}

std::vector<CommRecord> CommRegistry::snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  return records_;
}

}  // namespace cpath
