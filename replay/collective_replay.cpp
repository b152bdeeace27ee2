#include "collective_replay.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "byte_io.h"
#include "comm_topology.h"
#include "comm_unification.h"
#include "send_modes.h"
#include "sparse_exchange.h"

namespace cpath {

namespace {

constexpr int64_t kNoBegin = INT64_MIN;
constexpr int kRebuildTag = 0x6363;
constexpr size_t kBatch = 1 << 16;
// Sequence numbers are looked at in blocks: blocks nobody recorded anything in (a long pause)
// cost one bit each.
constexpr uint32_t kBlock = 1024;

// Collectives on this record are paired across its members: a multi-process communicator
// whose group is known; an intercommunicator whose two groups are both known.
bool coll_paired(const CommTable& ct, const std::vector<CommRecord>& recs, size_t rec) {
  if (rec >= ct.group.size() || rec >= recs.size() || ct.group[rec] < 0) return false;
  if (recs[rec].flags & kCommInter) return rec < ct.remote_group.size() && ct.remote_group[rec] >= 0;
  return recs[rec].size > 1;
}

// Ties go to the lower world rank so every member decides the same way.
bool later(int64_t b1, int32_t r1, int64_t b2, int32_t r2) { return b1 > b2 || (b1 == b2 && r1 >= 0 && (r2 < 0 || r1 < r2)); }

void combine_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  coll_agg_combine(static_cast<const CollAgg*>(in), static_cast<CollAgg*>(inout), *len);
}

struct Instance {
  uint32_t op;     // op index, or UINT32_MAX for the MPI_Init pseudo-instance
  uint32_t seq;    // on its communicator (MPI_Init is 0 on MPI_COMM_WORLD)
  uint32_t event;  // posting event
  int64_t begin;
  Pattern pattern;
  int32_t root;    // communicator-local root
  bool no_data;    // Op::no_data
  uint32_t init_call;  // persistent: the call of its init (kNoInit otherwise)
  bool progress;       // non-blocking, members wait for one another's progress (progress_call)
};

// The root of a rooted instance: on an intercommunicator the member that passed MPI_ROOT.
bool is_root(const Instance& x, int32_t local, bool inter) {
  return inter ? x.root == kRankRoot : x.root >= 0 && x.root == local;
}

// What every member contributes to the instances some member moved no data in.
struct Entry {
  int64_t begin;
  int32_t rank;  // world rank, -1: did not record the instance
  uint32_t event;
  int32_t local;   // intercommunicators: index in the union of both groups
  uint32_t flags;  // intercommunicators: kSide1 (the member is on side 1), kPassedRoot (MPI_ROOT)
};
// Per slot (slot_flags) and per Entry: kInter, kSide1 (this rank's side of the
// intercommunicator), kPassedRoot.
constexpr uint8_t kInter = 1, kSide1 = 2, kPassedRoot = 4;

struct KeyInfo {
  int32_t group = -1;
  // Intercommunicators (both groups known): instances are paired over the union of both
  // groups, side 0's ranks first; local_rank is this rank's index in it.
  int32_t remote = -1;
  bool inter = false;
  bool side1 = false;
  // One init's persistent collective instances (persistent_key): listed with their
  // communicator's group once its members agreed how many inits it had.
  bool persistent = false;
  int32_t local_rank = 0;
  int32_t rec = -1;
  uint32_t count = 0;  // collective calls on it, gaps included (+1 on world for MPI_Init)
  std::vector<Instance> inst;  // by seq
};

// The sequences a communicator's collectives are split into besides its own, each paired on a
// key of its own over the communicator's group: one per persistent collective init (its
// starts) and one per window or file made on it (their collectives). `counts[rec][i]`: this
// rank's count on the communicator record's i-th.
struct SubSequences {
  const std::vector<std::vector<uint32_t>>& counts;
  uint64_t (*key)(uint64_t comm_key, uint32_t i);
};

// The key of the i-th sub-sequence of kind `sub` on the communicator with key `base` (already
// in `keys`), with its group and this rank's count.
std::map<uint64_t, KeyInfo>::iterator add_sub_key(std::map<uint64_t, KeyInfo>* keys, uint64_t base, uint32_t i,
                                                   const SubSequences& sub) {
  auto b = keys->find(base);
  if (b == keys->end()) return keys->end();
  KeyInfo k = b->second;
  k.inst.clear();
  k.persistent = true;
  k.count = 0;
  if (k.rec >= 0 && static_cast<size_t>(k.rec) < sub.counts.size()) {
    const auto& counts = sub.counts[static_cast<size_t>(k.rec)];
    if (i < counts.size()) k.count = counts[i];
  }
  return keys->emplace(sub.key(base, i), std::move(k)).first;
}

}  // namespace

CollAgg coll_agg_none() { return CollAgg{kNoBegin, -1, 0, kNoBegin, -1, 0, 0, 0, 0, -1, 0}; }

void coll_agg_combine(const CollAgg* in, CollAgg* inout, int n) {
  for (int i = 0; i < n; ++i) {
    const CollAgg& a = in[i];
    CollAgg& b = inout[i];
    if (later(a.max_begin, a.max_rank, b.max_begin, b.max_rank)) {
      b.max_begin = a.max_begin;
      b.max_rank = a.max_rank;
      b.max_event = a.max_event;
    }
    if (a.root_rank >= 0 && (b.root_rank < 0 || later(a.root_begin, a.root_rank, b.root_begin, b.root_rank))) {
      b.root_begin = a.root_begin;
      b.root_rank = a.root_rank;
      b.root_event = a.root_event;
    }
    if (a.first_rank >= 0 && (b.first_rank < 0 || a.first_end < b.first_end ||
                              (a.first_end == b.first_end && a.first_rank < b.first_rank))) {
      b.first_end = a.first_end;
      b.first_rank = a.first_rank;
      b.first_event = a.first_event;
    }
    if (a.prog_rank >= 0 && (b.prog_rank < 0 || later(a.prog_begin, a.prog_rank, b.prog_begin, b.prog_rank))) {
      b.prog_begin = a.prog_begin;
      b.prog_rank = a.prog_rank;
      b.prog_event = a.prog_event;
    }
    b.members += a.members;
    b.flags |= a.flags;
    b.init_min = std::min(b.init_min, a.init_min);
    b.init_max = std::max(b.init_max, a.init_max);
  }
}

Partner latest_in_neighbour(const std::vector<NeighbourEntry>& got, const std::vector<int32_t>& expected,
                            bool* complete) {
  Partner best;
  std::set<int32_t> seen;
  for (const NeighbourEntry& e : got) {
    if (!std::binary_search(expected.begin(), expected.end(), e.rank)) continue;
    seen.insert(e.rank);
    if (!best.valid() || later(e.begin, e.rank, best.begin, best.rank) ||
        (e.begin == best.begin && e.rank == best.rank && e.event < best.event))
      best = Partner{e.rank, e.event, e.begin};
  }
  if (complete) *complete = seen.size() == expected.size();
  return best;
}

void neighbour_world_ranks(const Timeline& tl, int32_t comm, int np, int me, std::vector<int32_t>* sources,
                           std::vector<int32_t>* destinations) {
  sources->clear();
  destinations->clear();
  const CommTopology* topo = topology_of(tl.trace->topologies, tl.trace->comms, comm);
  if (!topo) return;
  auto fill = [&](const std::vector<int32_t>& locals, std::vector<int32_t>* out) {
    for (int32_t l : locals) {
      const int32_t w = tl.world_rank(comm, l);
      if (w >= 0 && w < np && w != me) out->push_back(w);
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
  };
  fill(topo->sources, sources);
  fill(topo->destinations, destinations);
}

void replay_collectives(const Timeline& tl, const OpTable& ops, MPI_Comm world, PartnerTable* partners,
                        ReplayStats* stats, std::vector<uint8_t>* complete_out, std::vector<uint8_t>* unsync_ops,
                        std::vector<std::pair<uint32_t, uint32_t>>* progress_calls) {
  const bool decide = !unsync_ops || unsync_ops->size() != ops.ops.size();
  std::vector<uint8_t> decided;
  std::vector<std::pair<uint32_t, uint32_t>> chosen;
  if (!unsync_ops) unsync_ops = &decided;
  if (!progress_calls) progress_calls = &chosen;
  if (decide) unsync_ops->assign(ops.ops.size(), 0);
  if (decide) progress_calls->clear();
  if (complete_out) complete_out->assign(ops.ops.size() + 1, 0);
  partners->first_end.clear();
  partners->observed.assign(ops.ops.size(), 0);
  int me = 0, np = 1;
  PMPI_Comm_rank(world, &me);
  PMPI_Comm_size(world, &np);
  // A member that ended before its partner began by more than this (both clocks' error) did
  // not wait for it: on one clock, by any amount; on clocks left unaligned (align=0), never
  // known (the error has no bound: the clock repair is all there is).
  const bool unaligned = tl.trace && tl.trace->meta_value("clock_aligned") != "1" &&
                         std::atoll(tl.trace->meta_value("clock_hosts").c_str()) > 1;
  double err = !tl.trace ? 0 : unaligned ? HUGE_VAL : tl.trace->align_error_ns, err_max = 0;
  tool_allreduce(&err, &err_max, 1, MPI_DOUBLE, MPI_MAX, world);
  const int64_t slack = std::isinf(err_max) ? INT64_MAX : static_cast<int64_t>(2 * err_max);
  // Rule 4, members that waited beyond their pattern: where the completing call's thread began
  // waiting (its first poll of the op, rule 5, or the call itself), and the least size whose
  // transfers an MPI may hold for their receivers (the inline limit). Below it no collective
  // algorithm makes a member wait for more than the pattern's members except through trees,
  // which timing cannot tell from a member descheduled on a loaded machine: eager broadcasts in
  // a loop of random imbalance put an unrelated rank's 700 ms on the path.
  auto wait_start = [&](uint32_t op, uint32_t done) {
    const uint32_t fp = ops.first_poll(op);
    return fp < done && tl.slot(fp) == tl.slot(done) ? tl.ev[fp].begin : tl.ev[done].begin;
  };
  const EagerLimits limits = eager_limits_of(*tl.trace);
  const uint64_t hold_min = std::min(limits.inline_intra, limits.inline_inter);
  const int64_t floor_ns = slack == INT64_MAX ? INT64_MAX : std::max(slack, kBeyondPatternFloorNs);
  // A member's wait beyond its pattern is counted from its post, its pattern partner's entry
  // and where it began waiting; a member entering at `begin` is inside the window when it came
  // more than the floor after that and more than the clocks' error before the member left.
  auto beyond_base = [&](uint32_t op, const Partner& p) {
    const Op& o = ops.ops[op];
    const int64_t post = tl.ev[o.post].begin;
    return std::max({post, p.valid() ? p.begin : post, wait_start(op, o.done)});
  };
  auto in_window = [&](int64_t begin, int64_t base, int64_t end) { return begin - base > floor_ns && end - begin > slack; };
  auto take_latest = [&](uint32_t op, const Partner& last) {
    partners->of_op[op] = last;
    partners->observed[op] = kBeyondPattern;
    ++stats->collectives_beyond_pattern;
  };
  // Rule 4, progress: a non-blocking member's first call after its post that polled MPI's
  // progress engine (progresses_mpi; else the completing call), if it computed in between
  // (kCollectiveProgressGapNs). Every member of an all, one-to-all or all-to-one
  // instance may need any other's progress: the algorithm's trees make inner members wait for
  // their parents and children whatever the pattern (MPICH's 1-int MPI_Ibcast: rank 3 waited
  // 60 ms for the inner rank 2, not for the root computing 30 ms after its post).
  // Only polls that began once the last member had posted (`last_post`) count: before, nobody
  // can complete the instance (an overlap loop's halo MPI_Waitall right after the post, ending
  // 0.1 ms after a late member's post, left the others waiting 80 ms for the MPI_Wait after
  // 60 ms of work; a single early MPI_Test or MPI_Recv the same).
  partners->progress.clear();
  auto progress_applies = [&](const Op& o) {
    return o.done != kNoEvent && o.done != o.post && o.post != kNoEvent && o.pattern != Pattern::Scan &&
           o.pattern != Pattern::Exscan && o.pattern != Pattern::Neighbor;
  };
  auto progress_call = [&](const Op& o, int64_t last_post) {
    uint32_t c = o.done;
    for (uint32_t x = next_call_of_thread(tl, o.post); x != kNoEvent && x < o.done; x = next_call_of_thread(tl, x))
      if (tl.ev[x].begin >= last_post && progresses_mpi(tl, x)) {
        c = x;
        break;
      }
    return !stayed_in_mpi(tl, o.post, c, kCollectiveProgressGapNs) ? c : kNoEvent;
  };
  const CommTable& ct = tl.comms();
  const auto& recs = tl.trace->comms;
  // Every multi-process intracommunicator this rank belongs to takes part in the rebuild, with
  // or without recorded collectives, so all members agree on the list.
  std::map<uint64_t, KeyInfo> keys;
  const SubSequences subs[2] = {{ops.persistent_starts, persistent_key}, {ops.object_counts, object_key}};
  for (size_t rec = 0; rec < recs.size() && rec < ct.group.size(); ++rec) {
    const CommRecord& cr = recs[rec];
    if (!coll_paired(ct, recs, rec)) continue;
    KeyInfo& k = keys[ct.key[rec]];
    k.group = ct.group[rec];
    k.local_rank = cr.local_rank;
    if (cr.flags & kCommInter) {
      k.inter = true;
      k.remote = ct.remote_group[rec];
      k.side1 = (cr.flags & kCommInterSide1) != 0;
      if (k.side1) k.local_rank += static_cast<int32_t>(ct.groups[static_cast<size_t>(k.remote)].size());
    }
    k.rec = static_cast<int32_t>(rec);
    k.count = rec < ops.coll_count.size() ? ops.coll_count[rec] : 0;
    for (const SubSequences& sub : subs)
      if (rec < sub.counts.size())
        for (uint32_t i = 0; i < sub.counts[rec].size(); ++i) add_sub_key(&keys, ct.key[rec], i, sub);
  }
  {
    KeyInfo& w = keys[kWorldCommKey];
    w.group = 0;
    w.local_rank = me;
    w.count += 1;  // MPI_Init
    uint32_t init_event = UINT32_MAX;
    for (uint32_t e = 0; e < tl.ev.size(); ++e)
      if (call_info(tl.ev[e].e.call).kind == CallKind::Init) {
        init_event = e;
        break;
      }
    if (init_event != UINT32_MAX)
      w.inst.push_back(Instance{UINT32_MAX, 0, init_event, tl.ev[init_event].begin, Pattern::All, -1, false, kNoInit, false});
  }
  // Recorded instances; ops on unknown or intercommunicators were counted by build_ops.
  std::vector<uint32_t> neighbour_ops;
  for (uint32_t i = 0; i < ops.ops.size(); ++i) {
    const Op& o = ops.ops[i];
    if (o.kind != OpKind::Collective || o.comm < 0 || static_cast<size_t>(o.comm) >= ct.group.size()) continue;
    const size_t rec = static_cast<size_t>(o.comm);
    if (!coll_paired(ct, recs, rec)) continue;
    const uint64_t key = instance_key(ct.key[rec], ops, i);
    auto it = keys.find(key);
    if (it == keys.end()) continue;
    const uint32_t seq = o.seq + (key == kWorldCommKey ? 1 : 0);
    const uint32_t init_call = !o.persistent || o.args >= tl.ev.size() ? kNoInit : tl.ev[o.args].e.call;
    it->second.inst.push_back(Instance{i, seq, o.post, tl.ev[o.post].begin, o.pattern, op_root(tl, o), o.no_data, init_call,
                                       !it->second.inter && progress_applies(o)});
    if (o.pattern == Pattern::Neighbor) neighbour_ops.push_back(i);
  }

  MPI_Datatype agg_type;
  PMPI_Type_contiguous(sizeof(CollAgg), MPI_BYTE, &agg_type);
  PMPI_Type_commit(&agg_type);
  MPI_Op agg_op;
  PMPI_Op_create(combine_fn, 1, &agg_op);

  // Distinct groups in a job-wide order (their rank lists), so members rebuild them in the
  // same order and Comm_create_group cannot deadlock.
  std::map<std::vector<int32_t>, std::vector<uint64_t>> groups;
  for (const auto& kv : keys) {
    const KeyInfo& k = kv.second;
    if (k.persistent) continue;  // joins its communicator's group below
    std::vector<int32_t> ranks = ct.groups[static_cast<size_t>(k.group)];
    if (k.inter) {
      const auto& remote = ct.groups[static_cast<size_t>(k.remote)];
      ranks.insert(k.side1 ? ranks.begin() : ranks.end(), remote.begin(), remote.end());
    }
    groups[ranks].push_back(kv.first);
  }

  for (auto& [ranks, gkeys] : groups) {
    MPI_Comm c = MPI_COMM_NULL;
    const bool is_world = static_cast<int>(ranks.size()) == ct.world_size && std::is_sorted(ranks.begin(), ranks.end());
    if (is_world) {
      c = world;
    } else {
      MPI_Group wg, g;
      PMPI_Comm_group(world, &wg);
      PMPI_Group_incl(wg, static_cast<int>(ranks.size()), ranks.data(), &g);
      PMPI_Comm_create_group(world, g, kRebuildTag, &c);
      PMPI_Group_free(&g);
      PMPI_Group_free(&wg);
      if (c == MPI_COMM_NULL) continue;
    }
    int crank = 0, csize = 1;
    PMPI_Comm_rank(c, &crank);
    PMPI_Comm_size(c, &csize);
    std::sort(gkeys.begin(), gkeys.end());
    // Persistent collectives: each init's instances are paired on a key of their own, and so
    // are the collectives on each window and file. Members agree on how many inits, windows
    // and files each communicator had (one that paused recording through an init lists
    // fewer), so that they all lay out the same keys.
    {
      const size_t nb = gkeys.size();
      std::vector<int> many(2 * nb, 0), most(2 * nb, 0);
      for (size_t s = 0; s < 2; ++s)
        for (size_t k = 0; k < nb; ++k) {
          const int32_t rec = keys[gkeys[k]].rec;
          if (rec >= 0 && static_cast<size_t>(rec) < subs[s].counts.size())
            many[s * nb + k] = static_cast<int>(subs[s].counts[static_cast<size_t>(rec)].size());
        }
      tool_allreduce(many.data(), most.data(), static_cast<int>(2 * nb), MPI_INT, MPI_MAX, c);
      for (size_t s = 0; s < 2; ++s)
        for (size_t k = 0; k < nb; ++k)
          for (int i = 0; i < most[s * nb + k]; ++i) {
            auto it = keys.find(subs[s].key(gkeys[k], static_cast<uint32_t>(i)));
            if (it == keys.end()) it = add_sub_key(&keys, gkeys[k], static_cast<uint32_t>(i), subs[s]);
            gkeys.push_back(it->first);
          }
      std::sort(gkeys.begin(), gkeys.end());
    }
    // Members agree on how many collectives each communicator had (rule 8: they should all
    // have counted the same); a difference is reported, and the largest count is used.
    const size_t nk = gkeys.size();
    std::vector<long long> mm(2 * nk), res(2 * nk);
    for (size_t k = 0; k < nk; ++k) {
      const KeyInfo& ki = keys[gkeys[k]];
      mm[k] = ki.count;
      mm[nk + k] = -static_cast<long long>(ki.count);
    }
    tool_allreduce(mm.data(), res.data(), static_cast<int>(2 * nk), MPI_LONG_LONG, MPI_MIN, c);
    std::vector<uint32_t> n_of(nk);
    std::vector<size_t> block_off(nk + 1, 0);
    for (size_t k = 0; k < nk; ++k) {
      n_of[k] = static_cast<uint32_t>(-res[nk + k]);
      if (res[k] != -res[nk + k] && crank == 0) ++stats->collective_count_mismatch;
      block_off[k + 1] = block_off[k] + (n_of[k] + kBlock - 1) / kBlock;
    }
    // Which blocks of sequence numbers anybody recorded something in.
    std::vector<unsigned char> used(std::max<size_t>(block_off[nk], 1), 0), any(used.size(), 0);
    for (size_t k = 0; k < nk; ++k)
      for (const Instance& x : keys[gkeys[k]].inst)
        if (x.seq < n_of[k]) used[block_off[k] + x.seq / kBlock] = 1;
    tool_allreduce(used.data(), any.data(), static_cast<int>(used.size()), MPI_UNSIGNED_CHAR, MPI_BOR, c);
    // The slots every member lays out alike, and this rank's instance in each (or none).
    std::vector<const Instance*> slot_inst;
    std::vector<int32_t> slot_local;
    std::vector<uint8_t> slot_flags;  // kInter, kSide1
    for (size_t k = 0; k < nk; ++k) {
      const KeyInfo& ki = keys[gkeys[k]];
      size_t pos = 0;
      for (size_t b = 0; b < block_off[k + 1] - block_off[k]; ++b) {
        if (!any[block_off[k] + b]) continue;
        const uint32_t lo = static_cast<uint32_t>(b) * kBlock, hi = std::min<uint32_t>(n_of[k], lo + kBlock);
        while (pos < ki.inst.size() && ki.inst[pos].seq < lo) ++pos;
        for (uint32_t s = lo; s < hi; ++s) {
          const Instance* x = nullptr;
          if (pos < ki.inst.size() && ki.inst[pos].seq == s) x = &ki.inst[pos++];
          slot_inst.push_back(x);
          slot_local.push_back(ki.local_rank);
          slot_flags.push_back(static_cast<uint8_t>((ki.inter ? kInter : 0) | (ki.side1 ? kSide1 : 0)));
        }
      }
    }
    std::vector<size_t> scan_slots, zero_slots;
    // The latest member's entry, for rule 4's members that waited beyond their pattern (below).
    std::vector<Partner> slot_last(slot_inst.size());
    for (size_t off = 0; off < slot_inst.size(); off += kBatch) {
      const size_t n = std::min(kBatch, slot_inst.size() - off);
      std::vector<CollAgg> in(n), out(n);
      for (size_t j = 0; j < n; ++j) {
        const Instance* x = slot_inst[off + j];
        if (!x) {
          in[j] = coll_agg_none();
          continue;
        }
        const bool inter = slot_flags[off + j] & kInter;
        const bool root = is_root(*x, slot_local[off + j], inter);
        const bool scan = x->pattern == Pattern::Scan || x->pattern == Pattern::Exscan;
        // The latest member is every candidate set's but two on an intercommunicator: a rooted
        // collective's root group (the root of a reduction waits for the other group only).
        const bool in_max = !inter || (x->pattern != Pattern::OneToAll && x->pattern != Pattern::AllToOne) || x->root >= 0;
        in[j] = CollAgg{in_max ? x->begin : kNoBegin, in_max ? me : -1, x->event, root ? x->begin : kNoBegin, root ? me : -1,
                        root ? x->event : 0u, 1, (scan ? kCollFlagScan : 0u) | (x->no_data ? kCollFlagNoData : 0u)};
        in[j].init_min = in[j].init_max = x->init_call;
        if (x->progress) in[j].flags |= kCollFlagProgress;
        const uint32_t done = x->op == UINT32_MAX ? kNoEvent : ops.ops[x->op].done;
        if (done < tl.ev.size()) {
          in[j].first_end = tl.ev[done].end;
          in[j].first_rank = me;
          in[j].first_event = done;
        }
      }
      tool_allreduce(in.data(), out.data(), static_cast<int>(n), agg_type, agg_op, c);
      // Rule 4, progress: each member's progress call once the latest post is known, the latest
      // of them agreed in a second reduction over the batch's non-blocking instances.
      std::vector<size_t> prog_slots;
      for (size_t j = 0; j < n; ++j)
        if (out[j].flags & kCollFlagProgress) prog_slots.push_back(j);
      if (!prog_slots.empty()) {
        std::vector<CollAgg> pin(prog_slots.size(), coll_agg_none()), pout(prog_slots.size());
        for (size_t k = 0; k < prog_slots.size(); ++k) {
          const Instance* x = slot_inst[off + prog_slots[k]];
          if (!x || !x->progress) continue;
          uint32_t e = kNoEvent;
          if (decide) {
            e = progress_call(ops.ops[x->op], out[prog_slots[k]].max_begin);
            if (e != kNoEvent) progress_calls->emplace_back(x->op, e);
          } else {
            e = paired_with(*progress_calls, x->op, kNoEvent);
          }
          if (e == kNoEvent) continue;
          pin[k].prog_begin = tl.ev[e].begin;
          pin[k].prog_rank = me;
          pin[k].prog_event = e;
        }
        tool_allreduce(pin.data(), pout.data(), static_cast<int>(pin.size()), agg_type, agg_op, c);
        for (size_t k = 0; k < prog_slots.size(); ++k) {
          out[prog_slots[k]].prog_begin = pout[k].prog_begin;
          out[prog_slots[k]].prog_rank = pout[k].prog_rank;
          out[prog_slots[k]].prog_event = pout[k].prog_event;
        }
      }
      for (size_t j = 0; j < n; ++j) {
        const CollAgg& a = out[j];
        if (a.flags & kCollFlagScan) scan_slots.push_back(off + j);
        if (a.flags & kCollFlagNoData) zero_slots.push_back(off + j);
        if (a.max_rank >= 0) slot_last[off + j] = Partner{a.max_rank, a.max_event, a.max_begin};
        const Instance* x = slot_inst[off + j];
        if (!x) continue;
        const bool inter = slot_flags[off + j] & kInter;
        const bool root = is_root(*x, slot_local[off + j], inter);
        // On an intercommunicator the receiving group names the root (a rank of the other
        // group); the root's group passes MPI_ROOT or MPI_PROC_NULL and receives nothing.
        const bool receives = inter ? x->root >= 0 : !root;
        Partner p;
        switch (x->pattern) {
          case Pattern::OneToAll:
            if (receives && a.root_rank >= 0) p = Partner{a.root_rank, a.root_event, a.root_begin};
            break;
          case Pattern::AllToOne:
            if (root && a.max_rank >= 0) p = Partner{a.max_rank, a.max_event, a.max_begin};
            break;
          case Pattern::Scan:
          case Pattern::Exscan:
          case Pattern::Neighbor:
            break;  // below
          default:
            p = Partner{a.max_rank, a.max_event, a.max_begin};
        }
        // Members that paired different persistent operations (started in different orders):
        // counted, and for the what-if like an incomplete instance (its measured partner only).
        const bool mispaired = a.members > 1 && a.init_min != a.init_max;
        if (mispaired && x->op != UINT32_MAX) ++stats->collectives_mispaired;
        // The what-if re-times intercommunicator instances with their measured partner only
        // (docs/what-if.md, Limits): its coordinator knows one group.
        if (complete_out) (*complete_out)[x->op == UINT32_MAX ? ops.ops.size() : x->op] = a.members == csize && !mispaired && !inter;
        if (x->op == UINT32_MAX) {
          partners->init = p;
        } else {
          if (x->pattern != Pattern::Neighbor) partners->of_op[x->op] = p;
          // Only the instances progress_applies admits carry one (no scans, neighbourhood or
          // intercommunicator instances): a member's own is no candidate.
          if (a.prog_rank >= 0 && a.prog_rank != me)
            partners->progress.push_back({x->op, Partner{a.prog_rank, a.prog_event, a.prog_begin}});
          // Completion ("nobody leaves before the last member entered") needs a synchronising
          // instance; on an intercommunicator MPI promises only the other group's entry.
          if (!inter && a.members == csize && a.first_rank >= 0 && !(a.flags & kCollFlagNoData))
            partners->first_end.push_back({x->op, Partner{a.first_rank, a.first_event, a.first_end}});
          ++stats->collectives;
          // Neighbourhood instances depend on their in-neighbours only: counted below.
          if (a.members < csize && x->pattern != Pattern::Neighbor) ++stats->collectives_incomplete;
        }
      }
    }
    // Scans: the latest entry among ranks up to and including this one (for an exscan the
    // same edge: this rank's own entry never beats its own begin).
    for (size_t off = 0; off < scan_slots.size(); off += kBatch) {
      const size_t n = std::min(kBatch, scan_slots.size() - off);
      std::vector<CollAgg> in(n), out(n);
      for (size_t j = 0; j < n; ++j) {
        const Instance* x = slot_inst[scan_slots[off + j]];
        in[j] = x ? CollAgg{x->begin, me, x->event, kNoBegin, -1, 0u, 1, 0u} : coll_agg_none();
      }
      tool_scan(in.data(), out.data(), static_cast<int>(n), agg_type, agg_op, c);
      for (size_t j = 0; j < n; ++j) {
        const Instance* x = slot_inst[scan_slots[off + j]];
        if (x && x->op != UINT32_MAX && out[j].max_rank >= 0)
          partners->of_op[x->op] = Partner{out[j].max_rank, out[j].max_event, out[j].max_begin};
      }
    }
    // Members that did not synchronise (rule 4): they ended before the partner the pattern
    // gives them began, beyond the clocks' error. The instance is then looked at like one that
    // moves no data. Found by every member for itself; agreed only when someone found one.
    // Members that waited beyond their pattern (rule 4, rooted and scan patterns on an
    // intracommunicator): a member entered after the member, its pattern's partner and the
    // begin of its completing call by more than the floor, and before that call ended by more
    // than the clocks' error. The MPI's algorithm synchronised them (a root sending above the
    // eager limit waits for its receivers, a tree's inner member for its children, recursive
    // doubling both ways); such a member waits for the latest member that began before it
    // ended, whichever the pattern. When the latest member of all is that member, it is known
    // here; otherwise (someone came after the member left) every entry is gathered below and
    // the window is checked there. `beyond`: the member needs the gathered entries.
    std::vector<uint8_t> unsync(slot_inst.size(), 0), beyond(slot_inst.size(), 0);
    int found = 0, found_any = 0;
    for (size_t k = 0; k < slot_inst.size(); ++k) {
      const Instance* x = slot_inst[k];
      if (!x || x->no_data || x->op == UINT32_MAX || x->pattern == Pattern::Neighbor) continue;
      const uint32_t done = ops.ops[x->op].done;
      if (!decide) {
        if ((*unsync_ops)[x->op] == kUnsynchronised) unsync[k] = 1, found = 1;
        if ((*unsync_ops)[x->op] == kBeyondPattern) {
          if (slot_last[k].valid() && done < tl.ev.size() && slot_last[k].begin < tl.ev[done].end) take_latest(x->op, slot_last[k]);
          else beyond[k] = 1, found = 1;
        }
        continue;
      }
      const Partner& p = partners->of_op[x->op];
      if (done >= tl.ev.size()) continue;
      const int64_t end = tl.ev[done].end;
      if (p.valid() && p.rank != me && p.begin - end > slack) {
        unsync[k] = 1, found = 1, (*unsync_ops)[x->op] = kUnsynchronised;
        continue;
      }
      const bool rooted = x->pattern == Pattern::OneToAll || x->pattern == Pattern::AllToOne ||
                          x->pattern == Pattern::Scan || x->pattern == Pattern::Exscan;
      const Partner& last = slot_last[k];
      if (!rooted || (slot_flags[k] & kInter) || !last.valid() || floor_ns == INT64_MAX || op_bytes(tl, ops.ops[x->op]) <= hold_min)
        continue;
      const int64_t base = beyond_base(x->op, p);
      if (last.begin - base <= floor_ns || end - base - floor_ns <= slack) continue;  // no room for one
      (*unsync_ops)[x->op] = kBeyondPattern;
      if (in_window(last.begin, base, end)) take_latest(x->op, last);
      else beyond[k] = 1, found = 1;
    }
    tool_allreduce(&found, &found_any, 1, MPI_INT, MPI_MAX, c);
    if (found_any) {
      // Bit 1: some member did not synchronise; bit 2: some member waited beyond its pattern.
      std::vector<uint8_t> mark(unsync.size(), 0), any_mark(unsync.size(), 0);
      for (size_t k = 0; k < mark.size(); ++k) mark[k] = static_cast<uint8_t>(unsync[k] | (beyond[k] << 1));
      for (size_t off = 0; off < mark.size(); off += kBatch) {
        const int n = static_cast<int>(std::min(kBatch, mark.size() - off));
        tool_allreduce(mark.data() + off, any_mark.data() + off, n, MPI_UNSIGNED_CHAR, MPI_BOR, c);
      }
      std::vector<uint32_t> drop;
      for (size_t k = 0; k < any_mark.size(); ++k) {
        if (!any_mark[k]) continue;
        zero_slots.push_back(k);
        if ((any_mark[k] & 1) && slot_inst[k] && slot_inst[k]->op != UINT32_MAX) drop.push_back(slot_inst[k]->op);
      }
      // Completion ("nobody leaves before the last member entered") does not hold either.
      std::sort(drop.begin(), drop.end());
      auto& fe = partners->first_end;
      fe.erase(std::remove_if(fe.begin(), fe.end(),
                              [&](const auto& f) { return std::binary_search(drop.begin(), drop.end(), f.first); }),
               fe.end());
      std::sort(zero_slots.begin(), zero_slots.end());
      zero_slots.erase(std::unique(zero_slots.begin(), zero_slots.end()), zero_slots.end());
    }
    // Members that move no data or did not synchronise (rule 4): the latest candidate that began
    // before the member's completing call ended. Every member's entry of those instances (few)
    // goes to every member, in batches of at most 32 MiB.
    const size_t per = std::max<size_t>(1, (size_t{32} << 20) / (sizeof(Entry) * static_cast<size_t>(csize)));
    for (size_t off = 0; off < zero_slots.size(); off += per) {
      const size_t n = std::min(per, zero_slots.size() - off);
      std::vector<Entry> mine(n), all(n * static_cast<size_t>(csize));
      for (size_t j = 0; j < n; ++j) {
        const Instance* x = slot_inst[zero_slots[off + j]];
        const size_t k = zero_slots[off + j];
        const uint32_t f = slot_flags[k];
        mine[j] = x ? Entry{x->begin, me, x->event, slot_local[k], f | ((f & kInter) && x->root == kRankRoot ? kPassedRoot : 0u)}
                    : Entry{kNoBegin, -1, 0, -1, 0};
      }
      const int bytes = static_cast<int>(n * sizeof(Entry));
      tool_allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, c);
      for (size_t j = 0; j < n; ++j) {
        const Instance* x = slot_inst[zero_slots[off + j]];
        const bool wider = beyond[zero_slots[off + j]];
        if (!x || !(x->no_data || unsync[zero_slots[off + j]] || wider) || x->op == UINT32_MAX) continue;
        partners->observed[x->op] = 1;
        stats->collectives_unsynchronised += unsync[zero_slots[off + j]];
        const uint32_t done = ops.ops[x->op].done;
        Partner p;
        if (done < tl.ev.size()) {
          const int64_t end = tl.ev[done].end;
          const int32_t local = slot_local[zero_slots[off + j]];
          const uint8_t f = slot_flags[zero_slots[off + j]];
          const bool inter = f & kInter;
          const bool root = is_root(*x, local, inter);
          // Waited beyond its pattern: only if a member came in the window (decided once).
          const int64_t base = wider ? beyond_base(x->op, partners->of_op[x->op]) : 0;
          bool came = false;
          for (int q = 0; q < csize; ++q) {
            const Entry& e = all[static_cast<size_t>(q) * n + j];
            if (e.rank < 0 || e.begin >= end) continue;
            bool cand = true;
            switch (x->pattern) {
              case Pattern::OneToAll:
                cand = inter ? x->root >= 0 && (e.flags & kPassedRoot) : !root && e.local == x->root;
                break;
              case Pattern::AllToOne: cand = root && (!inter || (e.flags & kSide1) != (f & kSide1)); break;
              // As above, an exscan member's own entry competes too: it never beats its own begin.
              case Pattern::Scan:
              case Pattern::Exscan: cand = e.local <= local; break;
              default: break;
            }
            came = came || (wider && in_window(e.begin, base, end));
            if ((cand || wider) && (!p.valid() || later(e.begin, e.rank, p.begin, p.rank))) p = Partner{e.rank, e.event, e.begin};
          }
          if (wider && decide && !came) {
            // Nobody came while it was inside: it waited as its pattern says.
            (*unsync_ops)[x->op] = 0;
            partners->observed[x->op] = 0;
            continue;
          }
          if (wider) {
            take_latest(x->op, p);
            continue;
          }
        }
        partners->of_op[x->op] = p;
      }
    }
    if (c != world) PMPI_Comm_free(&c);
  }
  PMPI_Op_free(&agg_op);
  PMPI_Type_free(&agg_type);
  std::sort(partners->progress.begin(), partners->progress.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (decide) std::sort(progress_calls->begin(), progress_calls->end());  // looked up by op in the repair's calls
  std::sort(partners->first_end.begin(), partners->first_end.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  // Neighbourhood collectives: each member sends its entry to its out-neighbours; a member
  // waits for the latest of its in-neighbours' (rule 4). It also sends it to its in-neighbours,
  // whose out-neighbour it is: a member may wait beyond its pattern for an out-neighbour (above
  // the eager limit its sends wait for their receivers: a 1 MiB MPI_Neighbor_alltoall waited
  // 80 ms for a late out-neighbour under both MPIs).
  int have = neighbour_ops.empty() ? 0 : 1, anyone = 0;
  tool_allreduce(&have, &anyone, 1, MPI_INT, MPI_MAX, world);
  if (!anyone) return;
  std::vector<ByteWriter> out(static_cast<size_t>(np));
  std::vector<std::vector<int32_t>> expected(neighbour_ops.size()), out_of(neighbour_ops.size());
  for (size_t k = 0; k < neighbour_ops.size(); ++k) {
    const Op& o = ops.ops[neighbour_ops[k]];
    neighbour_world_ranks(tl, o.comm, np, me, &expected[k], &out_of[k]);
    const std::vector<int32_t>& dests = out_of[k];
    auto put = [&](int32_t to, uint8_t as_out) {
      ByteWriter& w = out[static_cast<size_t>(to)];
      w.put<uint64_t>(instance_key(ct.key[static_cast<size_t>(o.comm)], ops, neighbour_ops[k]));
      w.put<uint32_t>(o.seq);
      w.put<uint32_t>(o.post);
      w.put<int64_t>(tl.ev[o.post].begin);
      w.put<uint8_t>(as_out);
    };
    for (int32_t d : dests) put(d, 0);
    for (int32_t s : expected[k]) put(s, 1);
  }
  std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) bufs[static_cast<size_t>(p)].swap(out[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> in = exchange_bytes(bufs, world);
  // From in-neighbours, and from out-neighbours (as_out).
  std::map<std::pair<uint64_t, uint32_t>, std::vector<NeighbourEntry>> got, got_out;
  for (int p = 0; p < np; ++p) {
    ByteReader r(in[static_cast<size_t>(p)].data(), in[static_cast<size_t>(p)].size());
    while (r.left() > 0) {
      uint64_t key;
      uint32_t seq, event;
      int64_t begin;
      uint8_t as_out;
      if (!r.get(key) || !r.get(seq) || !r.get(event) || !r.get(begin) || !r.get(as_out)) break;
      (as_out ? got_out : got)[{key, seq}].push_back(NeighbourEntry{p, event, begin});
    }
  }
  static const std::vector<NeighbourEntry> kNone;
  for (size_t k = 0; k < neighbour_ops.size(); ++k) {
    const uint32_t op = neighbour_ops[k];
    const Op& o = ops.ops[op];
    const std::pair<uint64_t, uint32_t> key{instance_key(ct.key[static_cast<size_t>(o.comm)], ops, op), o.seq};
    auto it = got.find(key);
    bool complete = false;
    Partner p = latest_in_neighbour(it == got.end() ? kNone : it->second, expected[k], &complete);
    // Waited beyond its pattern (rule 4): an out-neighbour came in the window; then the latest
    // neighbour that began before the completing call ended.
    auto ot = got_out.find(key);
    if (ot != got_out.end() && o.done < tl.ev.size()) {
      // Only this member's own out-neighbours (its topology record says who they are).
      std::vector<NeighbourEntry>& outs = ot->second;
      outs.erase(std::remove_if(outs.begin(), outs.end(),
                                [&](const NeighbourEntry& e) {
                                  return !std::binary_search(out_of[k].begin(), out_of[k].end(), e.rank);
                                }),
                 outs.end());
      const int64_t end = tl.ev[o.done].end;
      bool wider = !decide && (*unsync_ops)[op] == kBeyondPattern;
      if (decide && floor_ns != INT64_MAX && op_bytes(tl, o) > hold_min) {
        const int64_t base = beyond_base(op, p);
        for (const NeighbourEntry& e : outs) wider = wider || in_window(e.begin, base, end);
        if (wider) (*unsync_ops)[op] = kBeyondPattern;
      }
      if (wider) {
        Partner q = p.valid() && p.begin < end ? p : Partner{};
        for (const NeighbourEntry& e : outs)
          if (e.begin < end && (!q.valid() || later(e.begin, e.rank, q.begin, q.rank))) q = Partner{e.rank, e.event, e.begin};
        take_latest(op, p = q);
      }
    }
    partners->of_op[op] = p;
    if (complete_out) (*complete_out)[op] = complete;
    if (!complete) ++stats->collectives_incomplete;  // an in-neighbour did not record it (or no topology)
  }
}

}  // namespace cpath
