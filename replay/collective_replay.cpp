#include "collective_replay.h"

#include <algorithm>
#include <climits>
#include <map>

#include "comm_unification.h"

namespace cpath {

namespace {

constexpr int64_t kNoBegin = INT64_MIN;
constexpr int kRebuildTag = 0x6363;
constexpr size_t kBatch = 1 << 16;

// Ties go to the lower world rank so every member decides the same way.
bool later(int64_t b1, int32_t r1, int64_t b2, int32_t r2) { return b1 > b2 || (b1 == b2 && r1 >= 0 && (r2 < 0 || r1 < r2)); }

void combine_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  coll_agg_combine(static_cast<const CollAgg*>(in), static_cast<CollAgg*>(inout), *len);
}

struct Instance {
  uint32_t op;        // op index, or UINT32_MAX for the MPI_Init pseudo-instance
  uint32_t event;     // posting event
  int64_t begin;
  Pattern pattern;
  int32_t root;       // communicator-local root
};

}  // namespace

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
  }
}

void replay_collectives(const Timeline& tl, const OpTable& ops, MPI_Comm world, std::vector<Partner>* partners,
                        Partner* init_partner, ReplayStats* stats) {
  int me = 0;
  PMPI_Comm_rank(world, &me);
  const CommTable& ct = tl.comms();
  // Instances per communicator key, in posting order.
  std::map<uint64_t, std::vector<Instance>> by_key;
  std::map<uint64_t, int32_t> key_group, key_local_rank;
  for (uint32_t i = 0; i < ops.ops.size(); ++i) {
    const Op& o = ops.ops[i];
    if (o.kind != OpKind::Collective || o.comm < 0) continue;
    const size_t rec = static_cast<size_t>(o.comm);
    if (rec >= ct.group.size() || ct.group[rec] < 0) {
      // Intercommunicator operations are counted once, by build_ops; this counts the rest.
      if (rec >= tl.trace->comms.size() || !(tl.trace->comms[rec].flags & kCommInter)) ++stats->skipped_unknown_group;
      continue;
    }
    const CommRecord& cr = tl.trace->comms[rec];
    if (cr.size <= 1) continue;  // size-1 communicators wait for nobody
    const uint64_t key = ct.key[rec];
    by_key[key].push_back({i, o.post, tl.ev[o.post].begin, o.pattern, o.root});
    key_group[key] = ct.group[rec];
    key_local_rank[key] = cr.local_rank;
  }
  // Every multi-process intracommunicator this rank belongs to takes part in the rebuild, with
  // or without recorded collectives: all members then agree on the list even when recording
  // was paused on some of them.
  for (size_t rec = 0; rec < tl.trace->comms.size() && rec < ct.group.size(); ++rec) {
    const CommRecord& cr = tl.trace->comms[rec];
    if (cr.size <= 1 || ct.group[rec] < 0 || (cr.flags & kCommInter)) continue;
    key_group[ct.key[rec]] = ct.group[rec];
    key_local_rank[ct.key[rec]] = cr.local_rank;
  }
  // MPI_Init: the first instance on MPI_COMM_WORLD.
  uint32_t init_event = UINT32_MAX;
  for (uint32_t e = 0; e < tl.ev.size(); ++e)
    if (call_info(tl.ev[e].e.call).kind == CallKind::Init) {
      init_event = e;
      break;
    }
  {
    auto& w = by_key[kWorldCommKey];
    const int64_t b = init_event != UINT32_MAX ? tl.ev[init_event].begin : kNoBegin;
    w.insert(w.begin(), Instance{UINT32_MAX, init_event, b, Pattern::All, -1});
    key_group[kWorldCommKey] = 0;
    key_local_rank[kWorldCommKey] = me;
  }

  MPI_Datatype agg_type;
  PMPI_Type_contiguous(sizeof(CollAgg), MPI_BYTE, &agg_type);
  PMPI_Type_commit(&agg_type);
  MPI_Op agg_op;
  PMPI_Op_create(combine_fn, 1, &agg_op);

  // Distinct groups in a job-wide order (their rank lists), so members rebuild them in the
  // same order and Comm_create_group cannot deadlock.
  std::map<std::vector<int32_t>, std::vector<uint64_t>> groups;
  for (const auto& kv : key_group) groups[ct.groups[static_cast<size_t>(kv.second)]].push_back(kv.first);

  for (auto& [ranks, keys] : groups) {
    MPI_Comm c = MPI_COMM_NULL;
    const bool is_world = static_cast<int>(ranks.size()) == ct.world_size && keys.size() &&
                          std::is_sorted(ranks.begin(), ranks.end());
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
    std::sort(keys.begin(), keys.end());
    // Agree on instance counts per communicator: paused recording (MPI_Pcontrol) or a memory
    // cap can leave members with different counts; then only the common prefix is replayed.
    const size_t nk = keys.size();
    std::vector<long long> counts(nk), mm(2 * nk), res(2 * nk), mins(nk), maxs(nk);
    for (size_t k = 0; k < nk; ++k) {
      counts[k] = static_cast<long long>(by_key[keys[k]].size());
      mm[k] = counts[k];
      mm[nk + k] = -counts[k];
    }
    PMPI_Allreduce(mm.data(), res.data(), static_cast<int>(2 * nk), MPI_LONG_LONG, MPI_MIN, c);
    for (size_t k = 0; k < nk; ++k) {
      mins[k] = res[k];
      maxs[k] = -res[nk + k];
    }
    std::vector<const Instance*> flat, scans;
    std::vector<int32_t> flat_local;
    for (size_t k = 0; k < keys.size(); ++k) {
      const auto& inst = by_key[keys[k]];
      if (mins[k] != maxs[k]) stats->collectives_approximated += static_cast<uint64_t>(counts[k] - mins[k]) + 1;
      for (long long j = 0; j < mins[k]; ++j) {
        flat.push_back(&inst[static_cast<size_t>(j)]);
        flat_local.push_back(key_local_rank[keys[k]]);
      }
    }
    for (size_t off = 0; off < flat.size(); off += kBatch) {
      const size_t n = std::min(kBatch, flat.size() - off);
      std::vector<CollAgg> in(n), res(n);
      for (size_t j = 0; j < n; ++j) {
        const Instance& x = *flat[off + j];
        const bool root = x.root >= 0 && x.root == flat_local[off + j];
        in[j] = CollAgg{x.begin, x.begin == kNoBegin ? -1 : me, x.event,
                        root ? x.begin : kNoBegin, root ? me : -1, root ? x.event : 0u};
      }
      PMPI_Allreduce(in.data(), res.data(), static_cast<int>(n), agg_type, agg_op, c);
      for (size_t j = 0; j < n; ++j) {
        const Instance& x = *flat[off + j];
        const bool root = x.root >= 0 && x.root == flat_local[off + j];
        const CollAgg& a = res[j];
        Partner p;
        switch (x.pattern) {
          case Pattern::OneToAll:
            if (!root && a.root_rank >= 0) p = Partner{a.root_rank, a.root_event, a.root_begin};
            break;
          case Pattern::AllToOne:
            if (root) p = Partner{a.max_rank, a.max_event, a.max_begin};
            break;
          case Pattern::Scan:
          case Pattern::Exscan:
            scans.push_back(&x);
            break;
          default:
            p = Partner{a.max_rank, a.max_event, a.max_begin};
        }
        if (x.op == UINT32_MAX) {
          if (init_partner) *init_partner = p;
        } else {
          (*partners)[x.op] = p;
          ++stats->collectives;
        }
      }
    }
    // Scans: the latest entry among ranks up to and including this one.
    for (size_t off = 0; off < scans.size(); off += kBatch) {
      const size_t n = std::min(kBatch, scans.size() - off);
      std::vector<CollAgg> in(n), res(n);
      for (size_t j = 0; j < n; ++j) {
        const Instance& x = *scans[off + j];
        in[j] = CollAgg{x.begin, me, x.event, kNoBegin, -1, 0u};
      }
      PMPI_Scan(in.data(), res.data(), static_cast<int>(n), agg_type, agg_op, c);
      for (size_t j = 0; j < n; ++j) (*partners)[scans[off + j]->op] = Partner{res[j].max_rank, res[j].max_event, res[j].max_begin};
    }
    if (c != world) PMPI_Comm_free(&c);
  }
  PMPI_Op_free(&agg_op);
  PMPI_Type_free(&agg_type);
}

}  // namespace cpath
