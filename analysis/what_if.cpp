#include "what_if.h"


#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <unordered_map>

#include "call_info.h"
#include "forward_pass.h"
#include "memory_budget.h"
#include "path_profile.h"
#include "regions.h"
#include "retimed_walk.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

// Walks share their rounds while their tables together stay below the larger of these: a fixed
// amount (a short run's walks are nothing but rounds) and a share per event (a long run's
// walks are mostly work, and K walks' tables at once raised the what-if's peak by K times
// theirs: NPB-LU-like lu_wavefront, 100k events per rank, 7 walks, +160 bytes per event).
constexpr uint64_t kSharedWalkTables = 8ull << 20;
constexpr uint64_t kSharedWalkBytesPerEvent = 24;
// One walk's tables (replay/path_jumping.cpp): an entry per event, and per node (a begin vertex
// another rank's edge enters) its pointer and flags and, in a round, its request and reply.
constexpr uint64_t kWalkBytesPerEvent = 4;
constexpr uint64_t kWalkBytesPerNode = 64;

enum class Term : uint8_t { Activity, Function, Rank, Balance, Network, Startup };

struct TermF {
  Term kind;
  int index;  // activity, function or rank
  double factor;
};

struct Scenario {
  std::string text, kind, target;
  double factor = 1;
  std::vector<TermF> terms;
  std::string option;  // WhatIfRow::option
};

std::string times_text(double f) {
  char buf[64];
  if (f == 0) return "removed";
  if (f < 1) std::snprintf(buf, sizeof buf, "%.3gx faster", 1 / f);
  else std::snprintf(buf, sizeof buf, "%.3gx slower", f);
  return buf;
}

constexpr size_t kPathTop = 3;  // activities shown per scenario's new path

// Scenario s's new critical path on this rank, summarised as the walk emits it (in pieces, so
// that no whole path is held: a path that stays on this rank is two segments per event): its
// top activities into `top` (keys "<s>\x1e<rank>\x1f<kind>\x1f<activity>", the union of every
// rank's top holds the global top) and, for the differential test, its time per raw activity
// (kind, call and site of the event, and of the previous event for compute) as "path" lines.
class PathSummary {
 public:
  PathSummary(const Timeline& tl, SiteNames& names, int me, const RegionMap* regions, bool dump,
              std::shared_ptr<const ActivityIds> ids)
      : tl_(tl), prof_(tl, names, me, regions, std::move(ids)), dump_(dump) {}

  void add(const std::vector<Segment>& segments) {
    prof_.add(segments);
    if (!dump_) return;
    auto site = [&](uint32_t e) {
      char b[64];
      std::snprintf(b, sizeof b, "%u:%" PRIx64, static_cast<unsigned>(tl_.ev[e].e.call), tl_.callsite(e));
      return std::string(b);
    };
    for (const Segment& g : segments) {
      const char* kind = g.kind == SegmentKind::Compute ? "compute" : g.kind == SegmentKind::Mpi ? "mpi" : "startup";
      const std::string prev = g.kind == SegmentKind::Compute && g.prev != kNoEvent ? site(g.prev) : "-";
      raw_[std::string(kind) + " " + site(g.event) + " " + prev] += g.end - g.begin;
    }
  }

  void finish(int s, StringTable* top, std::string* dump) {
    PathProfile prof = prof_.finish();
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [k, v] : prof.activities) rows.emplace_back(v[0], k);
    std::sort(rows.rbegin(), rows.rend());
    const std::string prefix = std::to_string(s) + "\x1e";
    for (size_t k = 0; k < rows.size() && k < kPathTop; ++k) (*top)[prefix + rows[k].second] = prof.activities[rows[k].second];
    if (!dump) return;
    for (const auto& [k, ns] : raw_) *dump += "path " + std::to_string(s) + " " + k + " " + std::to_string(ns) + "\n";
  }

 private:
  const Timeline& tl_;
  PathProfiler prof_;
  bool dump_;
  std::map<std::string, int64_t> raw_;
};

// Segments per piece of a new path (128 KiB), against up to two segments per event. Larger
// pieces only hold more: with 64k segments the what-if's peak was ~4 MB higher (halo_bench 10k,
// 2 ranks: medians 22.3 -> 18.0 MB) and the walks no faster.
constexpr size_t kPathChunk = 1 << 12;

bool rank_target(const std::string& t, int np, int* r) {
  if (t.size() < 5 || t.compare(0, 4, "rank") != 0) return false;
  char* end = nullptr;
  const long v = std::strtol(t.c_str() + 4, &end, 10);
  if (!end || *end || v < 0 || v >= np) return false;
  *r = static_cast<int>(v);
  return true;
}

}  // namespace

FunctionShares function_shares(const Timeline& tl, const std::vector<int64_t>& time, const std::vector<uint32_t>& fn,
                               const std::vector<std::string>& fn_names, const std::vector<std::string>& wanted) {
  FunctionShares out;
  out.names = wanted;
  const uint32_t n = static_cast<uint32_t>(tl.ev.size());
  if (time.empty() || wanted.empty()) return out;
  std::vector<int> want_of(fn_names.size(), -1);
  for (size_t k = 0; k < fn_names.size(); ++k) {
    auto it = std::find(wanted.begin(), wanted.end(), fn_names[k]);
    if (it != wanted.end()) want_of[k] = static_cast<int>(it - wanted.begin());
  }
  // Compute intervals of the MPI_Init thread, by begin.
  std::vector<uint32_t> main_ev;
  for (uint32_t i = 0; i < n; ++i)
    if (tl.slot(i) == tl.init_slot && tl.prev[i] != kNoEvent) main_ev.push_back(i);
  std::vector<uint32_t> total(n, 0);
  std::vector<std::pair<uint32_t, uint16_t>> hits;  // (event, wanted function)
  for (size_t x = 0; x < time.size(); ++x) {
    const int64_t t = time[x];
    auto it = std::upper_bound(main_ev.begin(), main_ev.end(), t, [&](int64_t v, uint32_t i) { return v < tl.ev[i].begin; });
    if (it == main_ev.end()) continue;
    const uint32_t i = *it;
    if (t < tl.ev[tl.prev[i]].end) continue;  // inside an MPI call
    ++total[i];
    const uint32_t f = x < fn.size() ? fn[x] : ~0u;
    if (f < want_of.size() && want_of[f] >= 0) hits.push_back({i, static_cast<uint16_t>(want_of[f])});
  }
  std::sort(hits.begin(), hits.end());
  out.begin.assign(n + 1, 0);
  for (size_t a = 0; a < hits.size();) {
    size_t b = a;
    while (b < hits.size() && hits[b] == hits[a]) ++b;
    out.share.push_back({hits[a].second, static_cast<float>(static_cast<double>(b - a) / total[hits[a].first])});
    ++out.begin[hits[a].first + 1];
    a = b;
  }
  for (uint32_t i = 0; i < n; ++i) out.begin[i + 1] += out.begin[i];
  return out;
}

WhatIfReport analyse_what_if(const WhatIfContext& cx, MPI_Comm comm) {
  WhatIfReport rep;
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  const Timeline& tl = *cx.tl;
  const WalkResult& walk = *cx.walk;
  if (walk.finalize_begin <= walk.job_begin) {
    rep.note = "no re-timing: no MPI_Finalize was recorded";
    return rep;
  }
  if (cx.clock_unrepaired > 0) {
    rep.note = "no re-timing: clock-condition violations are left after the repair, so the order of events is not known";
    return rep;
  }
  // Timed from when every rank is here: the cost of the re-timing, not of the phase before.
  tool_barrier(comm);
  const double t0 = PMPI_Wtime();
  const uint32_t n = static_cast<uint32_t>(tl.ev.size());

  // Activities the scenarios name (each once, whichever scenarios name it), and which event's
  // compute interval / MPI call is which.
  std::vector<std::string> acts;
  auto act_index = [&](const std::string& a) {
    auto it = std::find(acts.begin(), acts.end(), a);
    if (it != acts.end()) return static_cast<int>(it - acts.begin());
    acts.push_back(a);
    return static_cast<int>(acts.size() - 1);
  };
  std::vector<Scenario> sc;
  sc.push_back({"re-timed as measured (every factor 1)", "identity", "", 1, {}, ""});
  for (const std::string& a : cx.path_activities) {
    if (acts.size() >= cx.top || !cx.defaults) break;
    if (a.rfind("start-up", 0) == 0) continue;
    sc.push_back({a + " 2x faster on every rank", "activity", a, 0.5, {{Term::Activity, act_index(a), 0.5}},
                  whatif_option_text({a}, 0.5)});
  }
  const std::vector<std::string> fn_names = cx.functions ? cx.functions->names : std::vector<std::string>();
  auto fn_index = [&](const std::string& f) {
    auto it = std::find(fn_names.begin(), fn_names.end(), f);
    return it == fn_names.end() ? -1 : static_cast<int>(it - fn_names.begin());
  };
  for (size_t k = 0; cx.defaults && k < cx.path_functions.size() && k < cx.top; ++k) {
    const int fi = fn_index(cx.path_functions[k]);
    const std::string& fname = cx.path_functions[k];
    // Samples the symboliser could not name, or the MPI library's own entry points, are no
    // kernel a developer can speed up.
    if (fi < 0 || fname.empty() || fname[0] == '[' || fname.rfind("MPI_", 0) == 0 || fname.rfind("PMPI_", 0) == 0) continue;
    sc.push_back({cx.path_functions[k] + " 2x faster on every rank", "function", cx.path_functions[k], 0.5,
                  {{Term::Function, fi, 0.5}}, whatif_option_text({fname}, 0.5)});
  }
  // Compute per rank, for the balance scenario: wall-clock time, as the path counts it, so
  // threads computing at once count once. Backwards in timeline order the intervals come by
  // decreasing end (each ends where its call begins): `from` is where their union begins.
  long long my_compute = 0, all_compute = 0, max_compute = 0;
  int64_t from = INT64_MAX;
  for (uint32_t i = n; i-- > 0;) {
    if (tl.prev[i] == kNoEvent) continue;
    const int64_t b = tl.ev[tl.prev[i]].end, e = std::min(tl.ev[i].begin, from);
    if (e > b) my_compute += e - b;
    from = std::min(from, b);
  }
  tool_allreduce(&my_compute, &all_compute, 1, MPI_LONG_LONG, MPI_SUM, comm);
  tool_allreduce(&my_compute, &max_compute, 1, MPI_LONG_LONG, MPI_MAX, comm);
  const double mean = static_cast<double>(all_compute) / np;
  const double balance = my_compute > 0 ? mean / static_cast<double>(my_compute) : 1.0;
  if (cx.defaults) {
    sc.push_back({"every rank's compute balanced to the mean", "balance", "",
                  max_compute > 0 ? mean / static_cast<double>(max_compute) : 1.0, {{Term::Balance, 0, 0}}, ""});
    sc.push_back({"all MPI time zero (ideal network)", "network", "", 0, {{Term::Network, 0, 0.0}}, "whatif=mpi:0"});
    sc.push_back({"start-up zero", "startup", "", 0, {{Term::Startup, 0, 0.0}}, "whatif=startup:0"});
  }
  std::vector<std::string> unknown;
  for (const WhatIfItem& item : cx.user) {
    const double f = item.factor;
    const std::string targets = item.text();
    Scenario s{"", "user", targets, f, {}, whatif_option_text(item.targets, f)};
    bool ok = true;
    for (const std::string& t : item.targets) {
      int r = -1;
      if (rank_target(t, np, &r)) {
        s.terms.push_back({Term::Rank, r, f});
      } else if (t == "mpi" || t == "network") {
        s.terms.push_back({Term::Network, 0, f});
      } else if (t == "startup") {
        s.terms.push_back({Term::Startup, 0, f});
      } else if (std::find(cx.path_activities.begin(), cx.path_activities.end(), t) != cx.path_activities.end()) {
        s.terms.push_back({Term::Activity, act_index(t), f});
      } else if (fn_index(t) >= 0) {
        s.terms.push_back({Term::Function, fn_index(t), f});
      } else {
        ok = false;
        unknown.push_back(t);
      }
    }
    if (!ok || s.terms.empty()) continue;
    s.text = (s.terms.size() == 1 && s.terms[0].kind == Term::Rank ? targets + "'s compute" : targets) + " " + times_text(f);
    sc.push_back(s);
  }
  const int S = static_cast<int>(sc.size());

  // Event -> activity of its MPI call and of the compute interval before it, as the path names
  // them: an index into acts, -1 none, or kSplit when user regions split the interval (or the
  // call) between several activities, with each one's share of its time in `split`. An
  // activity scenario then scales exactly its parts: the new interval is the sum of its parts,
  // each scaled by its own activity's factor (markers are no PAG vertices, so nothing inside an
  // interval is timed apart from it). Named once per distinct call-site pair and region.
  constexpr int16_t kSplit = -2;
  std::vector<int16_t> comp_act, mpi_act;
  struct Split {
    std::vector<uint32_t> begin;                     // per event (n + 1), or empty: no split event
    std::vector<std::pair<int16_t, double>> share;   // (activity, share of the event's time)
  } comp_split, mpi_split;
  if (!acts.empty()) {
    comp_act.assign(n, -1);
    mpi_act.assign(n, -1);
    std::unordered_map<std::string, int16_t> want;
    for (size_t a = 0; a < acts.size(); ++a) want.emplace(acts[a], static_cast<int16_t>(a));
    const bool regions = cx.regions && !cx.regions->empty();
    struct Key {
      uint64_t k1, k2;
      uint32_t region;
      bool operator==(const Key& o) const { return k1 == o.k1 && k2 == o.k2 && region == o.region; }
    };
    struct KeyHash {
      size_t operator()(const Key& k) const { return (k.k1 * 1000003u ^ k.k2) + (static_cast<size_t>(k.region) << 40); }
    };
    std::unordered_map<Key, int16_t, KeyHash> cache;
    auto lookup = [&](const Segment& s, uint64_t k1, uint64_t k2, uint32_t region) -> int16_t {
      auto it = cache.find({k1, k2, region});
      if (it != cache.end()) return it->second;
      auto w = want.find(describe_activity(s, tl, *cx.names, region ? cx.regions->name(region) : ""));
      const int16_t v = w == want.end() ? -1 : w->second;
      cache.emplace(Key{k1, k2, region}, v);
      return v;
    };
    std::vector<std::pair<int16_t, int64_t>> parts;  // (activity, ns) of one event
    // The activity of [b, e) on the event's thread, or kSplit with its parts in `out`.
    auto classify = [&](const Segment& s, uint64_t k1, uint64_t k2, int64_t b, int64_t e, uint32_t i, Split* out) -> int16_t {
      if (!regions) return lookup(s, k1, k2, RegionMap::kNone);
      parts.clear();
      int64_t total = 0;
      cx.regions->split(tl.thread_of(i), b, e, [&](uint32_t st, int64_t pb, int64_t pe) {
        const int16_t a = lookup(s, k1, k2, cx.regions->innermost(st));
        total += pe - pb;
        for (auto& p : parts)
          if (p.first == a) return void(p.second += pe - pb);
        parts.emplace_back(a, pe - pb);
      });
      if (parts.size() == 1 || total <= 0) return parts.back().first;
      bool any = false;
      for (const auto& p : parts) any = any || p.first >= 0;
      if (!any) return -1;
      if (out->begin.empty()) out->begin.assign(n + 1, 0);
      for (const auto& p : parts)
        if (p.first >= 0 && p.second > 0) {
          out->share.emplace_back(p.first, static_cast<double>(p.second) / static_cast<double>(total));
          ++out->begin[i + 1];
        }
      return kSplit;
    };
    for (uint32_t i = 0; i < n; ++i) {
      const TimelineEvent& te = tl.ev[i];
      const uint64_t site = tl.callsite(i) ^ (static_cast<uint64_t>(te.e.call) << 48);
      mpi_act[i] = classify(Segment{te.begin, te.end, i, kNoEvent, SegmentKind::Mpi}, site, ~0ull, te.begin, te.end, i, &mpi_split);
      const uint32_t p = tl.prev[i];
      if (p != kNoEvent) {
        const uint64_t psite = tl.callsite(p) ^ (static_cast<uint64_t>(tl.ev[p].e.call) << 48);
        comp_act[i] = classify(Segment{tl.ev[p].end, te.begin, i, p, SegmentKind::Compute}, psite, site, tl.ev[p].end, te.begin,
                               i, &comp_split);
      } else {
        comp_act[i] = classify(Segment{te.begin, te.begin, i, kNoEvent, SegmentKind::Compute}, ~0ull, site, te.begin, te.begin,
                               i, &comp_split);
      }
    }
    for (Split* x : {&comp_split, &mpi_split})
      for (uint32_t i = 0; i < n && !x->begin.empty(); ++i) x->begin[i + 1] += x->begin[i];
  }
  const FunctionShares* fs = cx.functions && !cx.functions->begin.empty() ? cx.functions : nullptr;

  // The ideal-network scenario scales every call's MPI time except MPI_Init's and MPI_Finalize's
  // (start-up and the analysis itself are no communication).
  auto network_scales = [&](uint32_t i) {
    const CallKind k = call_info(tl.ev[i].e.call).kind;
    return k != CallKind::Init && k != CallKind::Finalize;
  };
  // Factors: the activity and function terms (A, what the dump lists per event) times the
  // others (B), in that order, so the reference multiplies the same numbers.
  // An activity's factor in scenario s (1 when no term names it).
  auto act_factor = [&](int s, int a) {
    double f = 1.0;
    for (const TermF& t : sc[static_cast<size_t>(s)].terms)
      if (t.kind == Term::Activity && t.index == a) f *= t.factor;
    return f;
  };
  // What the activity terms make of event i's compute interval or MPI time: its activity's
  // factor, or for a split one the sum of its parts' shares, each times its activity's factor.
  auto act_scale = [&](int s, const std::vector<int16_t>& act, const Split& split, uint32_t i) {
    if (act.empty() || act[i] == -1) return 1.0;
    if (act[i] != kSplit) return act_factor(s, act[i]);
    double scaled = 0, rest = 1;
    bool named = false;
    for (uint32_t x = split.begin[i]; x < split.begin[i + 1]; ++x) {
      const double f = act_factor(s, split.share[x].first), sh = split.share[x].second;
      named = named || f != 1.0;
      scaled += sh * f;
      rest -= sh;
    }
    return named ? std::max(0.0, rest) + scaled : 1.0;
  };
  auto factors_ab = [&](uint32_t i, int s, double* ca, double* ma, double* cb, double* mb) {
    *ca = act_scale(s, comp_act, comp_split, i);
    *ma = act_scale(s, mpi_act, mpi_split, i);
    *cb = *mb = 1.0;
    for (const TermF& t : sc[static_cast<size_t>(s)].terms) {
      switch (t.kind) {
        case Term::Activity:
          break;
        case Term::Function:
          if (fs)
            for (uint32_t x = fs->begin[i]; x < fs->begin[i + 1]; ++x)
              if (fs->share[x].first == t.index) {
                const double sh = fs->share[x].second;
                *ca *= 1.0 - sh + sh * t.factor;
              }
          break;
        case Term::Rank:
          if (t.index == me) *cb *= t.factor;
          break;
        case Term::Balance:
          *cb *= balance;
          break;
        case Term::Network:
          if (network_scales(i)) *mb *= t.factor;
          break;
        case Term::Startup:
          break;
      }
    }
  };
  // An event's factors depend only on its activities, whether it is an MPI call the network
  // scenario scales, and its sampled functions: events alike in the first two and without
  // samples share a class (a dense key); an event with samples gets a class of its own when
  // the group has a function scenario.
  const int na = static_cast<int>(acts.size()) + 1;
  auto factor_classes = [&](uint32_t count, int g0, int gs) {
    ForwardFactors f;
    // Samples matter only to a group with a function scenario, parts of split intervals only
    // to one with an activity scenario.
    bool functions = false, activities = false;
    for (int s = 0; s < gs; ++s)
      for (const TermF& t : sc[static_cast<size_t>(g0 + s)].terms) {
        functions = functions || t.kind == Term::Function;
        activities = activities || t.kind == Term::Activity;
      }
    f.of_event.assign(count, 0);
    std::vector<uint32_t> dense(static_cast<size_t>(na) * na * 2, UINT32_MAX);
    auto add_row = [&](uint32_t i) {
      for (int s = 0; s < gs; ++s) {
        double ca = 1, ma = 1, cb = 1, mb = 1;
        if (g0 + s != 0) factors_ab(i, g0 + s, &ca, &ma, &cb, &mb);  // the identity: every factor 1
        f.compute.push_back(ca * cb);
        f.mpi.push_back(ma * mb);
      }
      return static_cast<uint32_t>(f.compute.size() / static_cast<size_t>(gs) - 1);
    };
    for (uint32_t i = 0; i < count; ++i) {
      const bool split = (!comp_act.empty() && comp_act[i] == kSplit) || (!mpi_act.empty() && mpi_act[i] == kSplit);
      if ((functions && fs && fs->begin[i] < fs->begin[i + 1]) || (activities && split)) {
        f.of_event[i] = add_row(i);
        continue;
      }
      // (A split event here is in no scenario's activity: its factors are those of none.)
      auto key_of = [](const std::vector<int16_t>& act, uint32_t e) {
        return static_cast<size_t>(act.empty() || act[e] < 0 ? 0 : act[e] + 1);
      };
      const size_t key = (key_of(comp_act, i) * na + key_of(mpi_act, i)) * 2 + (network_scales(i) ? 1 : 0);
      if (dense[key] == UINT32_MAX) dense[key] = add_row(i);
      f.of_event[i] = dense[key];
    }
    return f;
  };
  if (cx.scenarios_per_pass == 0) {
    rep.note = "no re-timing: even one scenario's re-timed run (" + std::to_string(kWhatIfBaseBytesPerEvent) + " bytes per event and " +
               std::to_string(kWhatIfBytesPerScenarioEvent) + " per scenario) does not fit in the memory a rank may use (" +
               std::to_string(cx.memory_limit >> 20) + " MiB; option analysis_mem=)";
    return rep;
  }
  // Within the memory plan, several passes of a few scenarios each: the same results, more time.
  const int per_pass = static_cast<int>(std::min<uint32_t>(cx.scenarios_per_pass, static_cast<uint32_t>(S)));
  int passes = 0;
  ForwardResult fr;
  fr.ok = true;
  fr.end.assign(static_cast<size_t>(S), 0);
  fr.end_rank.assign(static_cast<size_t>(S), 0);
  // Each scenario's new critical path, walked along the end edges the pass chose.
  StringTable path_top;
  std::vector<long long> changes(static_cast<size_t>(S), 0), changes_sum(static_cast<size_t>(S), -1);
  std::string path_dump;
  bool walk_paths = cx.paths;
  // Walks go in scenario order and stop for good at the first that does not fit: the first
  // walks_done scenarios have a new path.
  int walks_done = 0;
  bool paths_cut = false;
  bool stalled = false, timed_out = false;
  double forward_s = 0, paths_s = 0;
  // A pass is one message per dependency between ranks, each waiting until the other rank
  // runs: on cores shared with other work that can be a scheduler time slice per message
  // (halo_bench 100k at 2 ranks beside a CI run: 43 s instead of 0.8 s). The budget bounds
  // what the job pays for it; by default as long as the run itself, at least 10 s. The new
  // paths' walks share it: they are one message per round too, and could otherwise cost more
  // than the passes (NWChem CCSD, 4 ranks: 14.5 s of walks after 0.8 s of passes with
  // whatif_time=2).
  const double budget = cx.time_s > 0 ? cx.time_s
                                      : std::max(10.0, static_cast<double>(walk.finalize_begin - walk.job_begin) * 1e-9);
  // The new paths have about as many nodes as the measured one (the same graph, re-timed); a
  // walk that was not by jumping (walk=sequential) could have one per event. A rank no other
  // rank's edge enters has none.
  unsigned long long nodes_max = 0,
                     nodes_here = walk.nodes >= 0 ? static_cast<unsigned long long>(walk.nodes) : cx.tl->ev.size();
  if (cx.paths) tool_allreduce(&nodes_here, &nodes_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  const uint64_t walk_bytes = std::max<uint64_t>(1, cx.events_max * kWalkBytesPerEvent + nodes_max * kWalkBytesPerNode);
  const uint64_t shared_bytes = std::max(kSharedWalkTables, cx.events_max * kSharedWalkBytesPerEvent);
  std::shared_ptr<const ActivityIds> ids;  // the new paths' activities, made for the first walk
  for (int g0 = 0; g0 < S; g0 += per_pass, ++passes) {
    const int gs = std::min(per_pass, S - g0);
    ForwardInput in;
    in.tl = cx.tl;
    in.ops = cx.ops;
    in.partners = cx.partners;
    in.coll_complete = cx.coll_complete;
    in.job_begin = walk.job_begin;
    in.startup.assign(static_cast<size_t>(gs), 1.0);
    for (int s = 0; s < gs; ++s)
      for (const TermF& t : sc[static_cast<size_t>(g0 + s)].terms)
        if (t.kind == Term::Startup) in.startup[static_cast<size_t>(s)] *= t.factor;
    in.factors = factor_classes(n, g0, gs);
    if (g0 + per_pass >= S && cx.dump_path.empty()) {
      // The last pass's factors are made: the activities and the sampled shares they came from
      // are not read again (but by the tests' dump of every factor, path=1), and the pass
      // peaks before it frees the ops (halo_bench 100k with the defaults: 8 bytes per event of
      // its 142).
      std::vector<int16_t>().swap(comp_act);
      std::vector<int16_t>().swap(mpi_act);
      comp_split = Split();
      mpi_split = Split();
      if (cx.release_functions) cx.release_functions();
    }
    in.keep_run = cx.paths;
    in.stall_s = cx.stall_s;
    in.deadline = t0 + budget;
    if (g0 + per_pass >= S) in.release_pag = cx.release_pag;  // the last pass
    const double f0 = PMPI_Wtime();
    ForwardResult part = run_forward_pass(in, gs, comm);
    forward_s += PMPI_Wtime() - f0;
    stalled = stalled || part.stalled;
    timed_out = timed_out || part.timed_out;
    fr.ok = fr.ok && part.ok;
    if (part.stalled || part.timed_out) break;  // every rank knows (the pass agreed)
    for (int s = 0; s < gs && part.ok; ++s) {
      fr.end[static_cast<size_t>(g0 + s)] = part.end[static_cast<size_t>(s)];
      fr.end_rank[static_cast<size_t>(g0 + s)] = part.end_rank[static_cast<size_t>(s)];
    }
    walk_paths = walk_paths && fr.ok && part.run.scenarios == gs;
    if (!walk_paths || paths_cut) continue;
    const double w0 = PMPI_Wtime();
    // Shared rounds pay off where the rounds' latency does, which grows with the ranks
    // (bench/walk_bench --walks 7, 2 cores: even at 4 ranks, 1.1-3.4x faster at 16, 3.4x at
    // 64), and most where the walks are nothing but rounds: under MPICH with more ranks than
    // cores each round costs scheduler time slices (a tiny program at 7 ranks on 2 cores spent
    // 0.85 s in the what-if, most of it in seven walks' rounds one after the other). But every
    // walk of a group holds its tables until the group's rounds end, so a long run's walks
    // share rounds only as far as kSharedWalkBytesPerEvent allows.
    const int group = static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(static_cast<uint64_t>(gs), shared_bytes / walk_bytes)));
    std::unique_ptr<PathSummary> sum;  // of the scenario whose pieces are arriving
    if (!ids && (!cx.regions || cx.regions->empty())) ids = make_activity_ids(tl);
    // Of a group, as many walks as end within the budget by what a walk cost so far (before
    // the first: the measured path's walk) and leave the passes still to come the time the
    // passes so far took: the scenarios' run times matter more than their new paths. Agreed
    // by every rank, so all stop together.
    const int passes_left = (S - g0 - gs + per_pass - 1) / per_pass;
    const double pass_s = forward_s / (passes + 1);
    auto go = [&](int count) {
      const double one = walks_done ? (paths_s + PMPI_Wtime() - w0) / walks_done : std::max(cx.walk_s, walk.rounds_s);
      const double left = t0 + budget - PMPI_Wtime() - passes_left * pass_s;
      int fit = left <= 0 ? 0 : one <= 0 ? count : static_cast<int>(std::min<double>(count, std::floor(left / one)));
      int all = 0;
      tool_allreduce(&fit, &all, 1, MPI_INT, MPI_MIN, comm);
      paths_cut = all < count;
      return all;
    };
    walk_retimed_all(
        tl, part.run, group, comm,
        [&](int s, WalkResult& w, bool last) {
          if (!sum) sum.reset(new PathSummary(tl, *cx.names, me, cx.regions, !cx.dump_path.empty(), ids));
          sum->add(w.segments);
          if (!last) return;
          changes[static_cast<size_t>(g0 + s)] = static_cast<long long>(w.handoffs);
          ++walks_done;
          sum->finish(g0 + s, &path_top, cx.dump_path.empty() ? nullptr : &path_dump);
          sum.reset();
        },
        kPathChunk, go);
    paths_s += PMPI_Wtime() - w0;
  }
  if (walk_paths) {
    tool_reduce(changes.data(), changes_sum.data(), S, MPI_LONG_LONG, MPI_SUM, 0, comm);
    reduce_table_to_root(&path_top, comm);
  }
  const double secs[3] = {PMPI_Wtime() - t0, forward_s, paths_s};
  double secs_max[3] = {0, 0, 0};
  tool_reduce(secs, secs_max, 3, MPI_DOUBLE, MPI_MAX, 0, comm);

  if (!cx.dump_path.empty()) {
    if (FILE* f = std::fopen(cx.dump_path.c_str(), "w")) {
      for (int s = 0; s < S; ++s)
        std::fprintf(f, "scenario %d %s %.17g %s\n", s, sc[static_cast<size_t>(s)].kind.c_str(), sc[static_cast<size_t>(s)].factor,
                     sc[static_cast<size_t>(s)].target.c_str());
      for (int s = 1; s < S; ++s)
        for (uint32_t i = 0; i < n; ++i) {
          double ca, ma, cb, mb;
          factors_ab(i, s, &ca, &ma, &cb, &mb);
          if (ca != 1.0) std::fprintf(f, "c %d %u %.17g\n", s, i, ca);
          if (ma != 1.0) std::fprintf(f, "m %d %u %.17g\n", s, i, ma);
        }
      if (me == 0 && fr.ok)
        for (int s = 0; s < S; ++s) {
          std::fprintf(f, "result %d %" PRId64 " %" PRId64 "\n", s, fr.end[static_cast<size_t>(s)],
                       fr.end[static_cast<size_t>(s)] - walk.job_begin);
          if (walk_paths && s < walks_done)
            std::fprintf(f, "path_rank_changes %d %lld\n", s, changes_sum[static_cast<size_t>(s)]);
        }
      std::fputs(path_dump.c_str(), f);
      std::fclose(f);
    }
  }
  if (me != 0) return rep;
  if (timed_out) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", budget);
    rep.note = std::string("no re-timing: it took longer than its budget of ") + b +
               " s (option whatif_time=): each dependency between ranks waits for the other rank to run, which on "
               "cores shared with other work costs scheduler time slices";
    return rep;
  }
  if (stalled) {
    rep.stalled = true;
    rep.note = "no re-timing: it waited " + std::to_string(static_cast<int>(cx.stall_s)) +
               " s for a value no rank could send (a dependency cycle: collective instances the ranks paired "
               "in different orders) and gave up";
    return rep;
  }
  if (!fr.ok) {
    rep.note = "no re-timing: no MPI_Finalize was recorded";
    return rep;
  }
  rep.present = true;
  rep.seconds = secs_max[0];
  rep.forward_s = secs_max[1];
  rep.paths_s = secs_max[2];
  rep.measured_s = static_cast<double>(walk.finalize_begin - walk.job_begin) * 1e-9;
  const double base = static_cast<double>(fr.end[0] - walk.job_begin) * 1e-9;
  for (int s = 0; s < S; ++s) {
    const Scenario& x = sc[static_cast<size_t>(s)];
    WhatIfRow r;
    r.scenario = x.text;
    r.kind = x.kind;
    r.target = x.target;
    r.factor = x.factor;
    r.option = x.option;
    r.run_time_s = static_cast<double>(fr.end[static_cast<size_t>(s)] - walk.job_begin) * 1e-9;
    r.gain_s = base - r.run_time_s;
    r.end_rank = fr.end_rank[static_cast<size_t>(s)];
    if (walk_paths && s < walks_done) r.path_rank_changes = changes_sum[static_cast<size_t>(s)];
    rep.rows.push_back(r);
  }
  // The new paths' top activities: the largest rows of the union of every rank's top.
  std::vector<std::vector<std::pair<double, WhatIfPathRow>>> tops(static_cast<size_t>(S));
  for (const auto& [k, v] : path_top) {
    const size_t a = k.find('\x1e'), b = k.find('\x1f', a + 1), c = k.find('\x1f', b + 1);
    if (a == std::string::npos || b == std::string::npos || c == std::string::npos) continue;
    const int s = std::atoi(k.c_str());
    if (s < 0 || s >= S || v.empty()) continue;
    tops[static_cast<size_t>(s)].push_back({v[0], WhatIfPathRow{k.substr(c + 1), std::atoi(k.c_str() + a + 1), v[0] * 1e-9}});
  }
  for (int s = 0; s < S; ++s) {
    auto& t = tops[static_cast<size_t>(s)];
    // Largest first; ties by rank then name, so the order does not depend on the reduction.
    std::sort(t.begin(), t.end(), [](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first > y.first;
      if (x.second.rank != y.second.rank) return x.second.rank < y.second.rank;
      return x.second.activity < y.second.activity;
    });
    for (size_t k = 0; k < t.size() && k < kPathTop; ++k) rep.rows[static_cast<size_t>(s)].path_top.push_back(t[k].second);
  }
  if (!unknown.empty()) {
    rep.note = "unknown what-if target";
    for (size_t k = 0; k < unknown.size(); ++k) rep.note += (k ? ", " : " ") + unknown[k];
    rep.note += " (a path activity, a sampled function, rankN, mpi or startup)";
  }
  if (paths_cut) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", budget);
    if (!rep.note.empty()) rep.note += "; ";
    rep.note += "new critical paths for " + std::to_string(walks_done) + " of " + std::to_string(S) +
                " scenarios: the rest would not have fitted in the re-timing's budget of " + b +
                " s (option whatif_time=)";
  }
  if (passes > 1) {
    if (!rep.note.empty()) rep.note += "; ";
    rep.note += "re-timed in " + std::to_string(passes) + " passes of up to " + std::to_string(per_pass) +
                " scenarios, to stay within the memory a rank may use (option analysis_mem=)";
  }
  return rep;
}

}  // namespace cpath
