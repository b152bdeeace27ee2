// cpath-ref: the sequential reference analysis. Reads every rank's trace file (option dump=1),
// builds the whole Program Activity Graph in one process with explicit vertices and edges, and
// finds the critical path by the plainest correct algorithm: follow the single outgoing edge
// of each vertex from the latest MPI_Finalize entry (seed 000, Lemma 1).
//
// It shares only the trace parsing with libcpath (decoding, timeline, request linking); the
// matching, the collective instances, the edge rule and the walk are written again here, so
// the differential test (distributed walk vs this) checks the distributed machinery.
//
//   cpath-ref DIR            prints the path segments ("rank kind begin end event"), latest last
//   cpath-ref --summary DIR  prints length, compute and MPI time, time per rank
// A job that ended before MPI_Finalize (traces written at the crash) is analysed as far as its
// records go; the output then starts with the partial label ("partial 1", "missing_ranks ...",
// "rank_end <rank> <ns> <why>", "path_end <ns> rank <r>"; '#'-prefixed before segments).
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "call_info.h"
#include "comm_unification.h"
#include "ops.h"
#include "timeline.h"
#include "trace_file.h"

using namespace cpath;

namespace {

struct RankData {
  RankTrace trace;
  Timeline tl;
  OpTable ops;
};

struct VertexRef {
  int rank = -1;
  uint32_t event = 0;
  int64_t begin = 0;
};

struct Seg {
  int rank;
  const char* kind;
  int64_t begin, end;
  uint32_t event;
};

}  // namespace

int main(int argc, char** argv) {
  bool summary = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--summary")) summary = true;
    else dir = argv[i];
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: cpath-ref [--summary] DIR (a directory with trace.<rank>.cpt files)\n");
    return 2;
  }
  // Load all ranks. A job that ended before MPI_Finalize leaves partial traces and perhaps
  // none for some ranks: what exists is analysed, and the result is labelled partial.
  TraceDir td;
  std::string err;
  if (!read_trace_dir(dir, &td, &err)) {
    std::fprintf(stderr, "cpath-ref: %s\n", err.c_str());
    return td.size == 0 && err.find("no trace.") == 0 ? 2 : 1;
  }
  std::vector<RankData> ranks(static_cast<size_t>(td.size));
  for (int r = 0; r < td.size; ++r) {
    RankTrace& t = td.ranks[static_cast<size_t>(r)];
    if (t.rank < 0) t.rank = r, t.size = td.size;
    ranks[static_cast<size_t>(r)].trace = std::move(t);
  }
  const int np = static_cast<int>(ranks.size());
  for (RankData& r : ranks) {
    r.tl = build_timeline(r.trace);
    r.ops = build_ops(r.tl);
  }

  // partner[rank][op]: the begin vertex the op relates to on another rank.
  std::vector<std::vector<VertexRef>> partner(static_cast<size_t>(np));
  for (int r = 0; r < np; ++r) partner[static_cast<size_t>(r)].resize(ranks[static_cast<size_t>(r)].ops.ops.size());

  // Point-to-point: per channel, the k-th send pairs with the k-th receive.
  using Channel = std::tuple<uint64_t, int, int, int>;  // comm key, source world rank, dest world rank, tag
  std::map<Channel, std::vector<std::pair<int, uint32_t>>> sends, recvs;
  std::map<Channel, std::vector<std::pair<std::pair<int, uint32_t>, size_t>>> peeks;
  for (int r = 0; r < np; ++r) {
    const RankData& d = ranks[static_cast<size_t>(r)];
    for (uint32_t o = 0; o < d.ops.ops.size(); ++o) {
      const Op& op = d.ops.ops[o];
      if (op.kind != OpKind::Send && op.kind != OpKind::Recv && op.kind != OpKind::Peek) continue;
      if (op.comm < 0 || op.peer < 0 || op.cancelled) continue;
      if (d.trace.comms[static_cast<size_t>(op.comm)].flags & kCommInter) continue;
      const int other = d.tl.world_rank(op.comm, op.peer);
      if (other < 0) continue;
      const uint64_t key = d.tl.comm_key(op.comm);
      if (op.kind == OpKind::Send) {
        sends[Channel{key, r, other, op.tag}].push_back({r, o});
      } else if (op.kind == OpKind::Recv) {
        recvs[Channel{key, other, r, op.tag}].push_back({r, o});
      } else {
        const Channel c{key, other, r, op.tag};
        peeks[c].push_back({{r, o}, recvs[c].size()});
      }
    }
  }
  for (auto& [ch, ss] : sends) {
    auto it = recvs.find(ch);
    if (it == recvs.end()) continue;
    const auto& rs = it->second;
    for (size_t k = 0; k < ss.size() && k < rs.size(); ++k) {
      const RankData& sd = ranks[static_cast<size_t>(ss[k].first)];
      const RankData& rd = ranks[static_cast<size_t>(rs[k].first)];
      const uint32_t spost = sd.ops.ops[ss[k].second].post, rpost = rd.ops.ops[rs[k].second].post;
      partner[static_cast<size_t>(rs[k].first)][rs[k].second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
      partner[static_cast<size_t>(ss[k].first)][ss[k].second] = {rs[k].first, rpost, rd.tl.ev[rpost].begin};
    }
    auto pk = peeks.find(ch);
    if (pk != peeks.end())
      for (const auto& [who, k] : pk->second)
        if (k < ss.size()) {
          const RankData& sd = ranks[static_cast<size_t>(ss[k].first)];
          const uint32_t spost = sd.ops.ops[ss[k].second].post;
          partner[static_cast<size_t>(who.first)][who.second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
        }
  }

  // Collectives: the k-th collective on a communicator is the same instance on every member.
  std::map<uint64_t, std::vector<std::vector<std::pair<int, uint32_t>>>> inst;  // key -> member list -> ops
  std::map<uint64_t, std::map<int, size_t>> slot;
  for (int r = 0; r < np; ++r) {
    const RankData& d = ranks[static_cast<size_t>(r)];
    for (uint32_t o = 0; o < d.ops.ops.size(); ++o) {
      const Op& op = d.ops.ops[o];
      if (op.kind != OpKind::Collective || op.comm < 0) continue;
      const CommRecord& cr = d.trace.comms[static_cast<size_t>(op.comm)];
      if (cr.size <= 1 || d.trace.comm_table.group[static_cast<size_t>(op.comm)] < 0) continue;
      const uint64_t key = d.tl.comm_key(op.comm);
      auto& per = slot[key];
      const size_t k = per[r]++;
      auto& list = inst[key];
      if (list.size() <= k) list.resize(k + 1);
      list[k].push_back({r, o});
    }
  }
  for (auto& [key, list] : inst) {
    // Members must agree on the instance count; otherwise only the common prefix is used.
    size_t common = list.size();
    for (const auto& [r, n] : slot[key]) common = std::min(common, n);
    for (size_t k = 0; k < common; ++k) {
      const auto& members = list[k];
      VertexRef latest, root;
      for (const auto& [r, o] : members) {
        const RankData& d = ranks[static_cast<size_t>(r)];
        const Op& op = d.ops.ops[o];
        const VertexRef v{r, op.post, d.tl.ev[op.post].begin};
        if (latest.rank < 0 || v.begin > latest.begin || (v.begin == latest.begin && r < latest.rank)) latest = v;
        if (op.root >= 0 && op.root == d.trace.comms[static_cast<size_t>(op.comm)].local_rank) root = v;
      }
      for (const auto& [r, o] : members) {
        const RankData& d = ranks[static_cast<size_t>(r)];
        const Op& op = d.ops.ops[o];
        const bool is_root = op.root >= 0 && op.root == d.trace.comms[static_cast<size_t>(op.comm)].local_rank;
        VertexRef p;
        switch (op.pattern) {
          case Pattern::OneToAll:
            if (!is_root) p = root;
            break;
          case Pattern::AllToOne:
            if (is_root) p = latest;
            break;
          case Pattern::Scan:
          case Pattern::Exscan: {
            const int me_local = d.trace.comms[static_cast<size_t>(op.comm)].local_rank;
            for (const auto& [r2, o2] : members) {
              const RankData& d2 = ranks[static_cast<size_t>(r2)];
              const Op& op2 = d2.ops.ops[o2];
              if (d2.trace.comms[static_cast<size_t>(op2.comm)].local_rank > me_local) continue;
              const VertexRef v{r2, op2.post, d2.tl.ev[op2.post].begin};
              if (p.rank < 0 || v.begin > p.begin || (v.begin == p.begin && r2 < p.rank)) p = v;
            }
            break;
          }
          default:
            p = latest;
        }
        partner[static_cast<size_t>(r)][o] = p;
      }
    }
  }

  // MPI_Init: collective over all ranks.
  VertexRef init_latest;
  int64_t job_begin = INT64_MAX;
  std::vector<uint32_t> init_ev(static_cast<size_t>(np), kNoEvent), fin_ev(static_cast<size_t>(np), kNoEvent);
  for (int r = 0; r < np; ++r) {
    const Timeline& tl = ranks[static_cast<size_t>(r)].tl;
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      const CallKind k = call_info(tl.ev[i].e.call).kind;
      if (k == CallKind::Init && init_ev[static_cast<size_t>(r)] == kNoEvent) init_ev[static_cast<size_t>(r)] = i;
      if (k == CallKind::Finalize) fin_ev[static_cast<size_t>(r)] = i;
    }
    const uint32_t ie = init_ev[static_cast<size_t>(r)];
    if (ie != kNoEvent) {
      const VertexRef v{r, ie, tl.ev[ie].begin};
      job_begin = std::min(job_begin, v.begin);
      if (init_latest.rank < 0 || v.begin > init_latest.begin || (v.begin == init_latest.begin && r < init_latest.rank))
        init_latest = v;
    }
  }

  // Explicit PAG: vertex id = 2 * (offset of rank) + 2 * event + (0 begin, 1 end).
  std::vector<size_t> base(static_cast<size_t>(np) + 1, 0);
  for (int r = 0; r < np; ++r) base[static_cast<size_t>(r) + 1] = base[static_cast<size_t>(r)] + 2 * ranks[static_cast<size_t>(r)].tl.ev.size();
  const size_t nv = base[static_cast<size_t>(np)];
  const size_t kNone = SIZE_MAX;
  std::vector<size_t> edge(nv, kNone);
  auto vid = [&](int r, uint32_t e, int end) { return base[static_cast<size_t>(r)] + 2 * e + static_cast<size_t>(end); };
  for (int r = 0; r < np; ++r) {
    const RankData& d = ranks[static_cast<size_t>(r)];
    const Timeline& tl = d.tl;
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      // Begin vertex: to the end of the previous call that had ended (threads may overlap).
      if (i != init_ev[static_cast<size_t>(r)] && i > 0) {
        uint32_t p = i - 1;
        if (tl.ev[p].end > tl.ev[i].begin) {
          for (uint32_t j = i - 1, n = 0; j-- > 0 && n < 64; ++n)
            if (tl.ev[j].end <= tl.ev[i].begin) {
              p = j;
              break;
            }
        }
        edge[vid(r, i, 0)] = vid(r, p, 1);
      }
      // End vertex: the latest begin among the related calls that began before this end.
      VertexRef best{r, i, tl.ev[i].begin};
      std::vector<VertexRef> related;
      if (i == init_ev[static_cast<size_t>(r)]) related.push_back(init_latest);
      for (uint32_t k = d.ops.done_begin[i]; k < d.ops.done_begin[i + 1]; ++k)
        related.push_back(partner[static_cast<size_t>(r)][d.ops.done_ops[k]]);
      for (const VertexRef& v : related) {
        if (v.rank < 0 || v.begin >= tl.ev[i].end) continue;
        bool better = v.begin > best.begin;
        if (v.begin == best.begin && !(best.rank == r && best.event == i))
          better = v.rank < best.rank || (v.rank == best.rank && v.event < best.event);
        if (better) best = v;
      }
      edge[vid(r, i, 1)] = vid(best.rank, best.event, 0);
    }
  }

  // The walk: from the latest MPI_Finalize entry along the single outgoing edges.
  int start = -1;
  int64_t fin_begin = INT64_MIN;
  for (int r = 0; r < np; ++r) {
    const uint32_t f = fin_ev[static_cast<size_t>(r)];
    if (f == kNoEvent) continue;
    const int64_t b = ranks[static_cast<size_t>(r)].tl.ev[f].begin;
    if (b > fin_begin) {
      fin_begin = b;
      start = r;
    }
  }
  // A partial job: the path ends where the records end, at the latest call any rank recorded.
  uint32_t start_event = start >= 0 ? fin_ev[static_cast<size_t>(start)] : kNoEvent;
  int start_end = 0;
  if (start < 0 && td.partial) {
    for (int r = 0; r < np; ++r) {
      const Timeline& tl = ranks[static_cast<size_t>(r)].tl;
      for (uint32_t i = 0; i < tl.ev.size(); ++i)
        if (start < 0 || tl.ev[i].end > fin_begin) {
          fin_begin = tl.ev[i].end;
          start = r;
          start_event = i;
          start_end = 1;
        }
    }
  }
  if (start < 0) {
    std::fprintf(stderr, "cpath-ref: no rank recorded MPI_Finalize\n");
    return 1;
  }
  auto rank_of = [&](size_t v) {
    return static_cast<int>(std::upper_bound(base.begin(), base.end(), v) - base.begin()) - 1;
  };
  std::vector<Seg> path;
  size_t v = vid(start, start_event, start_end);
  for (size_t steps = 0; steps <= nv; ++steps) {
    const int r = rank_of(v);
    const Timeline& tl = ranks[static_cast<size_t>(r)].tl;
    const uint32_t e = static_cast<uint32_t>((v - base[static_cast<size_t>(r)]) / 2);
    const bool is_end = (v - base[static_cast<size_t>(r)]) % 2;
    const size_t next = edge[v];
    if (next == kNone) {
      if (tl.ev[e].begin > job_begin) path.push_back({r, "startup", job_begin, tl.ev[e].begin, e});
      break;
    }
    const int nr = rank_of(next);
    const uint32_t ne = static_cast<uint32_t>((next - base[static_cast<size_t>(nr)]) / 2);
    const int64_t t_next = ranks[static_cast<size_t>(nr)].tl.ev[ne].begin;
    if (is_end) {
      path.push_back({r, "mpi", t_next, tl.ev[e].end, e});
    } else {
      const int64_t pe = tl.ev[ne].end;
      path.push_back({r, "compute", std::min(pe, tl.ev[e].begin), tl.ev[e].begin, e});
    }
    v = next;
  }
  std::reverse(path.begin(), path.end());
  // The partial label: which ranks left no trace, why the others' traces end, and when.
  std::vector<std::string> label;
  if (td.partial) {
    std::string missing;
    for (int r : td.missing) missing += (missing.empty() ? "" : ",") + std::to_string(r);
    label.push_back("partial 1");
    label.push_back("missing_ranks " + (missing.empty() ? std::string("none") : missing));
    for (int r = 0; r < np; ++r) {
      const RankTrace& t = ranks[static_cast<size_t>(r)].trace;
      if (!t.partial.empty())
        label.push_back("rank_end " + std::to_string(r) + " " + std::to_string(t.global_ns(t.end_tick)) + " " + t.partial);
    }
    label.push_back("path_end " + std::to_string(fin_begin) + " rank " + std::to_string(start));
  }
  if (summary) {
    for (const std::string& l : label) std::printf("%s\n", l.c_str());
    double total = 0, compute = 0, mpi = 0;
    std::vector<double> per(static_cast<size_t>(np), 0.0);
    for (const Seg& s : path) {
      const double d = static_cast<double>(s.end - s.begin) * 1e-9;
      total += d;
      (std::strcmp(s.kind, "mpi") == 0 ? mpi : compute) += d;
      per[static_cast<size_t>(s.rank)] += d;
    }
    std::printf("elapsed_s %.9f\nlength_s %.9f\ncompute_s %.9f\nmpi_s %.9f\nsegments %zu\n",
                static_cast<double>(fin_begin - job_begin) * 1e-9, total, compute, mpi, path.size());
    for (int r = 0; r < np; ++r) std::printf("rank %d %.9f\n", r, per[static_cast<size_t>(r)]);
    return 0;
  }
  for (const std::string& l : label) std::printf("# %s\n", l.c_str());
  for (const Seg& s : path) std::printf("%d %s %" PRId64 " %" PRId64 " %u\n", s.rank, s.kind, s.begin, s.end, s.event);
  return 0;
}
