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
//   cpath-ref --violations DIR  also lists the clock-condition violations before repair
//   cpath-ref --summary DIR  prints length, compute and MPI time, time per rank, and what the
//                            clock-condition repair found
//   cpath-ref --comm DIR [OUTDIR]  communication matrices (cpath-ref/communication.h)
//   cpath-ref --startup DIR        start-up figures per rank (cpath-ref/startup.h)
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
#include "cpath-ref/communication.h"
#include "cpath-ref/startup.h"
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

struct ClockRepairSummary {
  uint64_t violations = 0, repaired = 0, unrepaired = 0, shifted = 0;
  int64_t max_shift = 0;
  int rounds = 0;
  bool moved = false;
};

int64_t meta_number(const RankTrace& t, const char* key, int64_t dflt) {
  const std::string v = t.meta_value(key);
  return v.empty() ? dflt : std::atoll(v.c_str());
}

// The repair written plainly: beta/delta per call of every rank, Jacobi rounds over ranks.
// On return every timeline holds the repaired times. `collectives()` recomputes the
// collective partners and init_latest from the timelines' current begins.
template <class Prev, class Coll>
ClockRepairSummary repair_clocks(std::vector<RankData>& ranks, const std::vector<std::vector<VertexRef>>& matched,
                                 const std::vector<std::vector<VertexRef>>& partner, const std::vector<uint32_t>& init_ev,
                                 const VertexRef& init_latest, Prev begin_prev, Coll collectives,
                                 bool list_violations) {
  ClockRepairSummary out;
  const size_t np = ranks.size();
  if (np == 0) return out;
  const int64_t lmin = meta_number(ranks[0].trace, "clock_lmin_ns", 1);
  const int64_t max_rounds = meta_number(ranks[0].trace, "clock_repair_rounds", 64);
  std::vector<std::vector<int64_t>> ob(np), oe(np), beta(np), delta(np);
  for (size_t r = 0; r < np; ++r) {
    for (const TimelineEvent& te : ranks[r].tl.ev) {
      ob[r].push_back(te.begin);
      oe[r].push_back(te.end);
    }
    beta[r].assign(ob[r].size(), 0);
    delta[r].assign(ob[r].size(), 0);
  }
  // Largest (partner begin + lmin - end) over c's constraints, with the partners' begins
  // shifted by `prev_beta`; INT64_MIN without constraints.
  auto need_of = [&](size_t r, uint32_t i, const std::vector<std::vector<int64_t>>& prev_beta) {
    const RankData& d = ranks[r];
    int64_t need = INT64_MIN;
    auto consider = [&](int64_t partner_begin) { need = std::max(need, partner_begin + lmin - oe[r][i]); };
    if (i == init_ev[r] && init_latest.rank >= 0 && static_cast<size_t>(init_latest.rank) != r)
      consider(init_latest.begin);
    for (uint32_t k = d.ops.done_begin[i]; k < d.ops.done_begin[i + 1]; ++k) {
      const uint32_t o = d.ops.done_ops[k];
      const Op& op = d.ops.ops[o];
      if (op.kind == OpKind::Recv || op.kind == OpKind::Peek) {
        const VertexRef& s = matched[r][o];
        if (s.rank >= 0) consider(ob[static_cast<size_t>(s.rank)][s.event] + prev_beta[static_cast<size_t>(s.rank)][s.event]);
      } else if (op.kind == OpKind::Collective) {
        const VertexRef& p = partner[r][o];  // computed from the shifted begins of the last round
        if (p.rank >= 0 && static_cast<size_t>(p.rank) != r) consider(p.begin);
      }
    }
    return need;
  };
  std::vector<std::vector<char>> violated(np);
  for (int round = 1;; ++round) {
    std::vector<std::vector<int64_t>> nb(np), nd(np);
    bool changed = false;
    for (size_t r = 0; r < np; ++r) {
      const size_t n = ob[r].size();
      nb[r].assign(n, 0);
      nd[r].assign(n, 0);
      if (round == 1) violated[r].assign(n, 0);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t p = begin_prev(static_cast<int>(r), i);
        nb[r][i] = p == kNoEvent ? 0 : nd[r][p];
        const int64_t need = need_of(r, i, beta);
        nd[r][i] = std::max(nb[r][i], need);
        if (round == 1 && need != INT64_MIN && need > 0) {
          violated[r][i] = 1;
          ++out.violations;
          if (list_violations)
            std::printf("violation rank %zu event %u %s ends %lld ns too early\n", r, i,
                        call_info(ranks[r].tl.ev[i].e.call).name, static_cast<long long>(need));
        }
      }
      changed = changed || nb[r] != beta[r];
    }
    out.rounds = round;
    beta.swap(nb);
    delta.swap(nd);
    if (!changed) break;
    for (size_t r = 0; r < np; ++r)
      for (size_t i = 0; i < ob[r].size(); ++i) ranks[r].tl.ev[i].begin = ob[r][i] + beta[r][i];
    collectives();
    if (round >= max_rounds) break;
  }
  for (size_t r = 0; r < np; ++r)
    for (uint32_t i = 0; i < ob[r].size(); ++i) {
      const int64_t need = need_of(r, i, beta);
      const bool bad = need != INT64_MIN && need > delta[r][i];
      out.unrepaired += bad;
      out.repaired += violated[r][i] && !bad;
      out.shifted += delta[r][i] > 0;
      out.max_shift = std::max(out.max_shift, delta[r][i]);
      out.moved = out.moved || delta[r][i] != 0;
      ranks[r].tl.ev[i].begin = ob[r][i] + beta[r][i];
      ranks[r].tl.ev[i].end = oe[r][i] + delta[r][i];
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && !std::strcmp(argv[1], "--comm")) return ref::communication_main(argc - 1, argv + 1);
  if (argc > 1 && !std::strcmp(argv[1], "--startup")) return ref::startup_main(argc - 1, argv + 1);
  bool summary = false, violations = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--summary")) summary = true;
    else if (!std::strcmp(argv[i], "--violations")) violations = true;
    else dir = argv[i];
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: cpath-ref [--summary] DIR (a directory with trace.<rank>.cpt files)\n");
    return 2;
  }
  // Load all ranks.
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("trace.", 0) == 0 && n.size() > 10 && n.substr(n.size() - 4) == ".cpt") files.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  if (files.empty()) {
    std::fprintf(stderr, "cpath-ref: no trace.<rank>.cpt files in %s (run with LIBCPATH_OPTIONS=dump=1)\n", dir.c_str());
    return 2;
  }
  std::vector<RankData> ranks(files.size());
  for (const std::string& f : files) {
    RankTrace t;
    std::string err;
    if (!read_trace_file(f, &t, &err)) {
      std::fprintf(stderr, "cpath-ref: %s\n", err.c_str());
      return 1;
    }
    if (t.rank < 0 || static_cast<size_t>(t.rank) >= ranks.size()) {
      std::fprintf(stderr, "cpath-ref: %s: rank %d out of range\n", f.c_str(), t.rank);
      return 1;
    }
    ranks[static_cast<size_t>(t.rank)].trace = std::move(t);
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
  // matched[rank][op]: for receives and peeks, the matched send's posting call (the clock
  // condition's constraint); partners read the begins as they are when compute_p2p() runs.
  std::vector<std::vector<VertexRef>> matched(static_cast<size_t>(np));
  for (int r = 0; r < np; ++r) matched[static_cast<size_t>(r)].resize(ranks[static_cast<size_t>(r)].ops.ops.size());
  auto compute_p2p = [&] {
    for (auto& [ch, ss] : sends) {
      auto it = recvs.find(ch);
      if (it == recvs.end()) continue;
      const auto& rs = it->second;
      for (size_t k = 0; k < ss.size() && k < rs.size(); ++k) {
        const RankData& sd = ranks[static_cast<size_t>(ss[k].first)];
        const RankData& rd = ranks[static_cast<size_t>(rs[k].first)];
        const uint32_t spost = sd.ops.ops[ss[k].second].post, rpost = rd.ops.ops[rs[k].second].post;
        partner[static_cast<size_t>(rs[k].first)][rs[k].second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
        matched[static_cast<size_t>(rs[k].first)][rs[k].second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
        partner[static_cast<size_t>(ss[k].first)][ss[k].second] = {rs[k].first, rpost, rd.tl.ev[rpost].begin};
      }
      auto pk = peeks.find(ch);
      if (pk != peeks.end())
        for (const auto& [who, k] : pk->second)
          if (k < ss.size()) {
            const RankData& sd = ranks[static_cast<size_t>(ss[k].first)];
            const uint32_t spost = sd.ops.ops[ss[k].second].post;
            partner[static_cast<size_t>(who.first)][who.second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
            matched[static_cast<size_t>(who.first)][who.second] = {ss[k].first, spost, sd.tl.ev[spost].begin};
          }
    }
  };
  compute_p2p();

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
  // Collective partners and the latest MPI_Init entry, from the begins as they are when
  // compute_collectives() runs.
  VertexRef init_latest;
  int64_t job_begin = INT64_MAX;
  std::vector<uint32_t> init_ev(static_cast<size_t>(np), kNoEvent), fin_ev(static_cast<size_t>(np), kNoEvent);
  auto compute_collectives = [&] {
    init_latest = VertexRef{};
    job_begin = INT64_MAX;
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
  };
  compute_collectives();

  // Begin vertex: to the end of the previous call that had ended (threads may overlap);
  // MPI_Init's begin leads to the start-up.
  auto begin_prev = [&](int r, uint32_t i) -> uint32_t {
    const Timeline& tl = ranks[static_cast<size_t>(r)].tl;
    if (i == init_ev[static_cast<size_t>(r)] || i == 0) return kNoEvent;
    uint32_t p = i - 1;
    if (tl.ev[p].end > tl.ev[i].begin) {
      for (uint32_t j = i - 1, n = 0; j-- > 0 && n < 64; ++n)
        if (tl.ev[j].end <= tl.ev[i].begin) {
          p = j;
          break;
        }
    }
    return p;
  };

  // Clock condition (docs/pag-rules.md, "Clocks"): rounds of the controlled logical clock,
  // every rank's sweep in a round reading the other ranks' shifts of the previous round.
  const ClockRepairSummary clock = repair_clocks(ranks, matched, partner, init_ev, init_latest, begin_prev,
                                                 [&] { compute_collectives(); }, violations);
  if (clock.moved) {
    compute_p2p();
    compute_collectives();
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
      const uint32_t p = begin_prev(r, i);
      if (p != kNoEvent) edge[vid(r, i, 0)] = vid(r, p, 1);
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
  if (start < 0) {
    std::fprintf(stderr, "cpath-ref: no rank recorded MPI_Finalize\n");
    return 1;
  }
  auto rank_of = [&](size_t v) {
    return static_cast<int>(std::upper_bound(base.begin(), base.end(), v) - base.begin()) - 1;
  };
  std::vector<Seg> path;
  size_t v = vid(start, fin_ev[static_cast<size_t>(start)], 0);
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
  if (summary) {
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
    std::printf("clock_violations %llu\nclock_repaired %llu\nclock_unrepaired %llu\nclock_shifted %llu\n"
                "clock_max_shift_ns %lld\nclock_rounds %d\n",
                static_cast<unsigned long long>(clock.violations), static_cast<unsigned long long>(clock.repaired),
                static_cast<unsigned long long>(clock.unrepaired), static_cast<unsigned long long>(clock.shifted),
                static_cast<long long>(clock.max_shift), clock.rounds);
    return 0;
  }
  for (const Seg& s : path) std::printf("%d %s %" PRId64 " %" PRId64 " %u\n", s.rank, s.kind, s.begin, s.end, s.event);
  return 0;
}
