#include "comm_registry.h"

#include "comm_topology.h"
#include "comm_unification.h"
#include "record_writer.h"

namespace cpath {

CommRegistry& comm_registry() {
  static CommRegistry r;
  return r;
}

int comm_created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick, int64_t colour) {
  return comm_registry().created(parent, c, flags, tick, colour);
}

void CommRegistry::init_world(int world_rank, int world_size) {
  std::lock_guard<std::mutex> g(mu_);
  generation_.fetch_add(1, std::memory_order_acq_rel);  // records_ restart: cached indices die
  world_rank_ = world_rank;
  world_size_ = world_size;
  records_.clear();
  keys_.clear();
  calls_.clear();
  topology_reset();
  live_.clear();
  idups_.clear();
  inter_pairs_.clear();
  if (world_group_ == MPI_GROUP_NULL) PMPI_Comm_group(MPI_COMM_WORLD, &world_group_);
  CommRecord w;
  w.handle = bits_Comm(MPI_COMM_WORLD);
  w.key_rank = 0;
  w.key_counter = 0;
  w.local_rank = world_rank;
  w.size = world_size;
  w.flags = kCommWorld | kCommWorldGroup | (world_size == 1 ? static_cast<uint32_t>(kCommSelf) : 0u);
  append(w, record_key(w));
  CommRecord s;
  s.handle = bits_Comm(MPI_COMM_SELF);
  s.key_rank = world_rank;
  s.local_rank = 0;
  s.size = 1;
  s.flags = kCommSelf;
  // Counter 0 of every process is reserved for its MPI_COMM_SELF; world is (0, 0) but flagged.
  s.key_counter = 0;
  append(s, record_key(s));
  defined_ = 1;
}

int CommRegistry::find_live(uint64_t handle) {
  auto it = live_.find(handle);
  return it == live_.end() ? -1 : it->second;
}

void CommRegistry::append(const CommRecord& r, uint64_t key) {
  generation_.fetch_add(1, std::memory_order_acq_rel);
  live_[r.handle] = static_cast<int>(records_.size());
  records_.push_back(r);
  keys_.push_back(key);
  calls_.push_back(0);
}

const CommRecord* CommRegistry::try_peek(size_t* n) {
  if (!mu_.try_lock()) return nullptr;
  *n = records_.size();
  return records_.data();  // locked until end_peek()
}

int CommRegistry::created(MPI_Comm parent, MPI_Comm c, unsigned flags, uint64_t tick, int64_t colour) {
  CommRecord r;
  uint32_t call = 0;  // this call's number among the communicator-creating calls on the parent
  {
    std::lock_guard<std::mutex> g(mu_);
    r.parent = find_live(bits_Comm(parent));
    // Every member of the parent counts the call, including those it gives MPI_COMM_NULL, so
    // the numbers agree. MPI_Comm_create_group involves only the new group: not counted.
    if (r.parent >= 0 && !(flags & kCommGroupOnly)) call = calls_[static_cast<size_t>(r.parent)]++;
  }
  if (c == MPI_COMM_NULL) return 0;
  r.handle = bits_Comm(c);
  r.created_tick = tick;
  r.flags = flags & ~kCommCreationOnly;
  if (r.flags & kCommDup) {
    // A duplicate has the parent's group, and every member of the parent duplicates it in the
    // same order, so (parent, ordinal) identifies it at finalize with no communication now:
    // idup's communicator, unusable before its request completes, is not even queried.
    std::lock_guard<std::mutex> g(mu_);
    if (r.parent >= 0 || (flags & kCommIdupCall)) {
      r.dup_ordinal = idups_[r.parent]++;
      uint64_t parent_key = 0;
      if (r.parent >= 0) {
        const CommRecord& p = records_[static_cast<size_t>(r.parent)];
        r.local_rank = p.local_rank;
        r.size = p.size;
        r.flags |= p.flags & (kCommWorldGroup | kCommSelf | kCommInter | kCommInterKnown | kCommInterSide1);
        r.remote_size = p.remote_size;
        parent_key = keys_[static_cast<size_t>(r.parent)];
      }
      append(r, dup_key(parent_key, r.dup_ordinal));
      return static_cast<int>(records_.size());
    }
    // Parent unknown (created by a call libcpath does not wrap): the broadcast way below.
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
  if (r.size == 1 && !inter) r.flags |= kCommSelf;
  uint64_t ikey = 0;
  bool side1 = false;
  if (inter && inter_key(c, &ikey, &side1)) {
    r.flags |= kCommInterKnown | kCommByCall | (side1 ? static_cast<uint32_t>(kCommInterSide1) : 0u);
    r.key_rank = static_cast<int32_t>(static_cast<uint32_t>(ikey >> 32));
    r.key_counter = static_cast<uint32_t>(ikey);
    std::lock_guard<std::mutex> g(mu_);
    append(r, ikey);
    return static_cast<int>(records_.size());
  }
  // Before the by-call/broadcast split: both kinds of key may name a world-group communicator
  // (split with one colour, cart_create over the world), and unification maps those to group 0
  // without claims sent. Dups inherit the flag from their parent above.
  if (!inter && r.size == world_size_ && r.size > 1) {
    int cmp = MPI_UNEQUAL;
    PMPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) r.flags |= kCommWorldGroup;
  }
  bool by_call = !inter && r.parent >= 0 && !(flags & (kCommGroupOnly | kCommMergeCall));
  uint64_t parent_key = 0;
  if (by_call) {
    std::lock_guard<std::mutex> g(mu_);
    by_call = !(records_[static_cast<size_t>(r.parent)].flags & kCommInter);
    parent_key = keys_[static_cast<size_t>(r.parent)];
  }
  if (!by_call) return created_by_broadcast(r, c);
  // What tells apart the communicators one call makes: each process gets at most one, so
  // distinct ones have distinct members, and distinct local ranks 0.
  int32_t which = 0;
  if (flags & kCommColour) {
    which = static_cast<int32_t>(colour);
  } else if (!(flags & kCommOnePerCall)) {
    MPI_Group g = MPI_GROUP_NULL;
    int zero = 0, first = MPI_UNDEFINED;
    if (PMPI_Comm_group(c, &g) == MPI_SUCCESS) {
      PMPI_Group_translate_ranks(g, 1, &zero, world_group_, &first);
      PMPI_Group_free(&g);
    }
    which = first;
  }
  r.call = call;
  r.which = static_cast<int32_t>(which);
  const uint64_t key = call_key(parent_key, call, which);
  r.key_rank = static_cast<int32_t>(static_cast<uint32_t>(key >> 32));
  r.key_counter = static_cast<uint32_t>(key);
  r.flags |= kCommByCall;
  int index = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    append(r, key);
    index = static_cast<int>(records_.size());
  }
  capture_topology(index - 1, c);  // neighbour lists, for neighbourhood collectives
  return index;
}

// Seed 003's way: local rank 0 names the communicator (its world rank, its counter) and
// broadcasts the name over it. Intercommunicators that reach another job (spawn, connect/
// accept) are named by each process alone (their operations are approximated, so members
// need not agree); those between two groups of this job were keyed by inter_key.
int CommRegistry::created_by_broadcast(CommRecord r, MPI_Comm c) {
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
  int index = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    append(r, record_key(r));
    index = static_cast<int>(records_.size());
  }
  capture_topology(index - 1, c);  // neighbour lists, for neighbourhood collectives
  return index;
}

bool CommRegistry::inter_key(MPI_Comm c, uint64_t* key, bool* side1) {
  // World ranks of the local and the remote group, in their rank order.
  uint64_t h[2] = {0, 0};
  int32_t first[2] = {-1, -1};
  for (int remote = 0; remote < 2; ++remote) {
    MPI_Group g = MPI_GROUP_NULL;
    if ((remote ? PMPI_Comm_remote_group(c, &g) : PMPI_Comm_group(c, &g)) != MPI_SUCCESS) return false;
    int n = 0;
    PMPI_Group_size(g, &n);
    std::vector<int> in(static_cast<size_t>(n)), out(static_cast<size_t>(n), MPI_UNDEFINED);
    for (int i = 0; i < n; ++i) in[static_cast<size_t>(i)] = i;
    const int rc = n > 0 ? PMPI_Group_translate_ranks(g, n, in.data(), world_group_, out.data()) : MPI_ERR_GROUP;
    PMPI_Group_free(&g);
    if (rc != MPI_SUCCESS) return false;
    uint64_t x = 0x51ed270b0a7f3c4dull ^ static_cast<uint64_t>(n);
    for (int w : out) {
      if (w == MPI_UNDEFINED) return false;  // a process of another job
      x = call_key(x, static_cast<uint32_t>(w), 0);
    }
    h[remote] = x;
    first[remote] = out[0];
  }
  // Side 0: the group whose local rank 0 has the smaller world rank (the groups are disjoint).
  *side1 = first[0] > first[1];
  const uint64_t a = *side1 ? h[1] : h[0], b = *side1 ? h[0] : h[1];
  const uint64_t pair = call_key(a, 0x1e7e5c0u, 0) ^ b;
  uint32_t ordinal = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    ordinal = inter_pairs_[pair]++;  // every member of both groups makes them in the same order
  }
  *key = call_key(pair, ordinal, 0x1e7e5c0);
  return true;
}

std::vector<CommRecord> CommRegistry::snapshot() {
  std::lock_guard<std::mutex> g(mu_);
  return records_;
}

int rma_group_list(ThreadState* ts, MPI_Group group, int assert_bits, const uint64_t** list) {
  *list = nullptr;
  const MPI_Group world = comm_registry().world_group();
  int n = 0;
  if (group == MPI_GROUP_NULL || world == MPI_GROUP_NULL || PMPI_Group_size(group, &n) != MPI_SUCCESS || n < 0) return 0;
  uint64_t* out = ts->scratch.handles(n + 1);
  int* in = ts->scratch.ints(2 * n);
  for (int i = 0; i < n; ++i) in[i] = i;
  if (n > 0 && PMPI_Group_translate_ranks(group, n, in, world, in + n) != MPI_SUCCESS) return 0;
  out[0] = (assert_bits & MPI_MODE_NOCHECK) ? 1 : 0;
  for (int i = 0; i < n; ++i) out[i + 1] = in[n + i] == MPI_UNDEFINED ? ~0ull : static_cast<uint64_t>(in[n + i]);
  *list = out;
  return n + 1;
}

}  // namespace cpath
