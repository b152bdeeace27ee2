#include "path_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "call_info.h"
#include "map_cache.h"
#include "regions.h"

namespace cpath {

namespace {

std::string mpi_at(const Timeline& tl, uint32_t ev, SiteNames& names) {
  return std::string(call_info(tl.ev[ev].e.call).name) + " at " + names.name(tl.callsite(ev));
}

}  // namespace

std::string encode_site_frames(const std::vector<SiteFrame>& frames) {
  std::string o;
  for (const SiteFrame& f : frames) o += f.function + "\x1f" + f.file + "\x1f" + std::to_string(f.line) + "\x1e";
  return o;
}

std::vector<SiteFrame> decode_site_frames(const std::string& encoded) {
  std::vector<SiteFrame> out;
  size_t b = 0;
  for (size_t e; (e = encoded.find('\x1e', b)) != std::string::npos; b = e + 1) {
    const size_t f1 = encoded.find('\x1f', b), f2 = f1 == std::string::npos ? f1 : encoded.find('\x1f', f1 + 1);
    if (f2 == std::string::npos || f2 > e) break;
    out.push_back({encoded.substr(b, f1 - b), encoded.substr(f1 + 1, f2 - f1 - 1),
                   static_cast<uint32_t>(std::strtoul(encoded.c_str() + f2 + 1, nullptr, 10))});
  }
  return out;
}

std::string describe_activity(const Segment& s, const Timeline& tl, SiteNames& names, const std::string& region) {
  const std::string in = region.empty() ? "" : " in region " + region;
  switch (s.kind) {
    case SegmentKind::Startup:
      return "start-up before MPI_Init";
    case SegmentKind::Mpi:
      return mpi_at(tl, s.event, names) + in;
    case SegmentKind::Compute:
    default:
      if (s.prev == kNoEvent) return "compute" + in + " before " + mpi_at(tl, s.event, names);
      return "compute" + in + " between " + mpi_at(tl, s.prev, names) + " and " + mpi_at(tl, s.event, names);
  }
}

namespace {

// Sums by raw (kind, call sites, region) first; names are built once per distinct activity.
struct Key {
  uint8_t kind;
  uint16_t call_prev, call;
  uint64_t site_prev, site;
  uint32_t region;
  bool operator==(const Key& o) const {
    return kind == o.kind && call_prev == o.call_prev && call == o.call && site_prev == o.site_prev && site == o.site &&
           region == o.region;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return (k.site * 0x9e3779b97f4a7c15ull) ^ (k.site_prev + (static_cast<uint64_t>(k.call) << 17) +
                                               (static_cast<uint64_t>(k.call_prev) << 34) + k.kind) ^
           (static_cast<uint64_t>(k.region) << 45);
  }
};
struct Acc {
  double ns = 0, count = 0;
  Segment example;
};

// The activity of a segment outside any user region.
Key key_of(const Timeline& tl, SegmentKind kind, uint32_t event, uint32_t prev) {
  Key k{static_cast<uint8_t>(kind), 0, 0, 0, 0, RegionMap::kNone};
  if (kind == SegmentKind::Startup) return k;
  const EventCore& e = tl.ev[event].e;
  k.call = e.call;
  k.site = tl.callsite(event);
  if (kind == SegmentKind::Compute) {
    if (prev != kNoEvent) {
      k.call_prev = tl.ev[prev].e.call;
      k.site_prev = tl.callsite(prev);
    } else {
      k.call_prev = 0xffff;
    }
  }
  return k;
}

}  // namespace

struct ActivityIds {
  std::vector<uint32_t> mpi, compute;  // per event: its MPI call's activity, the compute's before it
  std::vector<Key> keys;               // by id
};

std::shared_ptr<const ActivityIds> make_activity_ids(const Timeline& tl) {
  auto ids = std::make_shared<ActivityIds>();
  const uint32_t n = static_cast<uint32_t>(tl.ev.size());
  std::unordered_map<Key, uint32_t, KeyHash> index;
  MapCache<std::unordered_map<Key, uint32_t, KeyHash>> cache;
  auto id = [&](const Key& k) {
    uint32_t& v = cache.at(index, k);
    if (v == 0) {
      ids->keys.push_back(k);
      v = static_cast<uint32_t>(ids->keys.size());  // 1-based in the map: 0 is "new"
    }
    return v - 1;
  };
  ids->mpi.resize(n);
  ids->compute.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    ids->mpi[i] = id(key_of(tl, SegmentKind::Mpi, i, kNoEvent));
    ids->compute[i] = id(key_of(tl, SegmentKind::Compute, i, tl.prev[i]));
  }
  return ids;
}

// The calls of an MPI segment's event that lie on the path: all of them, or, for a merged run
// of polls only partly on it (rule 7's passed pieces, a loop the partner ended midway), its
// share of them by time, at least one. Counting the whole run listed thousands of MPI_Iprobe
// calls for 14 us of a 1.7 ms run.
static double on_path_calls(const Timeline& tl, const Segment& s) {
  const uint64_t n = tl.calls(s.event);
  if (n == 1) return 1;
  const int64_t len = tl.ev[s.event].end - tl.ev[s.event].begin;
  if (len <= 0 || s.end - s.begin >= len) return static_cast<double>(n);
  return std::max(1.0, std::round(static_cast<double>(n) * static_cast<double>(s.end - s.begin) / static_cast<double>(len)));
}

struct PathProfiler::State {
  const Timeline& tl;
  SiteNames& names;
  int rank;
  const RegionMap* regions;
  bool split;
  PathProfile p;
  std::unordered_map<Key, Acc, KeyHash> acc;
  // A path repeats a few activities (a loop's calls): the map's lookups were the profile's
  // main cost when the what-if profiles every scenario's new path.
  MapCache<std::unordered_map<Key, Acc, KeyHash>> cache;
  std::vector<std::pair<uint32_t, double>> pieces;
  // With activity ids (and no user regions): sums by id, put into `acc` by finish().
  std::shared_ptr<const ActivityIds> ids;
  std::vector<Acc> by_id;
};

PathProfiler::PathProfiler(const Timeline& tl, SiteNames& names, int rank, const RegionMap* regions,
                           std::shared_ptr<const ActivityIds> ids)
    : st_(new State{tl, names, rank, regions, regions && !regions->empty(), PathProfile(), {}, {}, {}, {}, {}}) {
  st_->p.call_ns.assign(kNumCalls, 0.0);
  st_->p.call_count.assign(kNumCalls, 0.0);
  if (ids && !st_->split && ids->mpi.size() == tl.ev.size()) {
    st_->ids = std::move(ids);
    st_->by_id.resize(st_->ids->keys.size());
  }
}

PathProfiler::~PathProfiler() = default;

void PathProfiler::add(const std::vector<Segment>& segments) {
  for (const Segment& s : segments) add_one(s);
}

void PathProfiler::add(const PathSegments& segments) {
  for (const Segment& s : segments) add_one(s);
}

void PathProfiler::add_one(const Segment& s) {
  State& x = *st_;
  const Timeline& tl = x.tl;
  PathProfile& p = x.p;
  const double ns = static_cast<double>(s.end - s.begin);
  p.total_ns += ns;
  double calls = 1;  // an MPI segment counts the calls its event stands for (merged polls)
  if (s.kind == SegmentKind::Mpi) {
    p.mpi_ns += ns;
    const uint16_t call = tl.ev[s.event].e.call;
    p.call_ns[call] += ns;
    calls = on_path_calls(tl, s);
    p.call_count[call] += calls;
  } else {
    p.compute_ns += ns;
    if (s.kind == SegmentKind::Startup) p.startup_ns += ns;
  }
  if (x.ids && s.kind != SegmentKind::Startup && (s.kind == SegmentKind::Mpi || s.prev == tl.prev[s.event])) {
    Acc& a = x.by_id[(s.kind == SegmentKind::Mpi ? x.ids->mpi : x.ids->compute)[s.event]];
    a.ns += ns;
    a.count += calls;
    a.example = s;
    return;
  }
  Key k = key_of(tl, s.kind, s.event, s.prev);
  auto add = [&](uint32_t region, double part, bool first) {
    k.region = region;
    Acc& a = x.cache.at(x.acc, k);
    a.ns += part;
    a.count += first ? calls : 0;
    a.example = s;
  };
  if (!x.split || s.kind == SegmentKind::Startup) {
    add(RegionMap::kNone, ns, true);
  } else {
    // An MPI call counts once, for the region holding most of it (the call-site rows sum the
    // regions' counts). A compute segment counts once for each region's part of it: each part
    // is an activity row of its own, and a row holding path time counted x0 where another
    // region held more of the same interval (region solve's 40 ms beside a nested region's 100).
    x.pieces.clear();
    x.regions->split(tl.thread_of(s.event), s.begin, s.end, [&](uint32_t st, int64_t b, int64_t e) {
      x.pieces.emplace_back(x.regions->innermost(st), static_cast<double>(e - b));
    });
    size_t most = 0;
    for (size_t i = 1; i < x.pieces.size(); ++i)
      if (x.pieces[i].second > x.pieces[most].second) most = i;
    for (size_t i = 0; i < x.pieces.size(); ++i) {
      bool first = i == most;
      if (s.kind == SegmentKind::Compute) {
        // Once per region, however often the segment enters it.
        first = x.pieces[i].second > 0 || i == most;
        for (size_t j = 0; j < i && first; ++j) first = !(x.pieces[j].first == x.pieces[i].first && x.pieces[j].second > 0);
      }
      add(x.pieces[i].first, x.pieces[i].second, first);
    }
  }
}

PathProfile PathProfiler::finish() {
  State& x = *st_;
  for (size_t id = 0; id < x.by_id.size(); ++id) {
    const Acc& a = x.by_id[id];
    if (a.count == 0) continue;  // every segment adds at least one call
    Acc& m = x.acc[x.ids->keys[id]];
    m.ns += a.ns;
    m.count += a.count;
    m.example = a.example;
  }
  x.by_id.clear();
  const Timeline& tl = x.tl;
  SiteNames& names = x.names;
  PathProfile& p = x.p;
  const std::string prefix = std::to_string(x.rank) + "\x1f";
  for (const auto& [k, a] : x.acc) {
    const SegmentKind kind = static_cast<SegmentKind>(k.kind);
    const char* kname = kind == SegmentKind::Mpi ? "mpi" : kind == SegmentKind::Startup ? "startup" : "compute";
    const std::string act = describe_activity(a.example, tl, names, k.region ? x.regions->name(k.region) : "");
    auto& row = p.activities[prefix + kname + "\x1f" + act];
    row.resize(2, 0.0);
    row[0] += a.ns;
    row[1] += a.count;
    auto& b = p.path_by_activity[act];
    b.resize(1, 0.0);
    b[0] += a.ns;
    if (kind == SegmentKind::Mpi) {
      const std::string at = mpi_at(tl, a.example.event, names);
      auto& site = p.sites[at];
      site.resize(2, 0.0);
      site[0] += a.ns;
      site[1] += a.count;
      if (names.has_call_paths())
        p.site_frames[at + "\x1d" + encode_site_frames(names.frames(tl.callsite(a.example.event)))].assign(1, 1.0);
    }
  }
  x.acc.clear();
  x.cache.clear();
  return std::move(p);
}

PathProfile profile_path(const WalkResult& w, const Timeline& tl, SiteNames& names, int rank, const RegionMap* regions) {
  PathProfiler prof(tl, names, rank, regions);
  prof.add(w.path);
  return prof.finish();
}

std::vector<double> activity_totals(const std::vector<std::string>& activities, const Timeline& tl,
                                    SiteNames& names, const RegionMap* regions) {
  const bool split = regions && !regions->empty();
  std::unordered_map<std::string, size_t> want;
  for (size_t i = 0; i < activities.size(); ++i) want.emplace(activities[i], i);
  std::vector<double> out(activities.size(), 0.0);
  // Aggregate by raw addresses first, name each distinct key once.
  struct K {
    uint64_t a, b;
    uint32_t ca, cb, region;
    bool operator==(const K& o) const { return a == o.a && b == o.b && ca == o.ca && cb == o.cb && region == o.region; }
  };
  struct H {
    size_t operator()(const K& k) const {
      return (k.a * 31 + k.b) ^ (static_cast<size_t>(k.ca) << 20) ^ k.cb ^ (static_cast<size_t>(k.region) << 40);
    }
  };
  // A rank's time in an activity is wall-clock time, as on the path: where two threads are in
  // the same activity at once, the overlap counts once (the union of the intervals). `edge` is
  // how far the union already reaches: its end when intervals come in order of their begin,
  // its begin when they come (backwards) in order of their end.
  struct V {
    double ns = 0;
    int64_t edge = 0;
    bool any = false;
    Segment example;
  };
  std::unordered_map<K, V, H> acc;
  MapCache<std::unordered_map<K, V, H>> cache;  // a loop repeats a few keys
  auto entry = [&](const K& k) -> V& { return cache.at(acc, k); };
  auto forward = [&](const K& k, int64_t b, int64_t e, const Segment& s) {
    V& x = entry(k);
    if (x.any && b < x.edge) b = x.edge;
    if (e > b) x.ns += static_cast<double>(e - b);
    x.edge = x.any ? std::max(x.edge, e) : e;
    x.any = true;
    x.example = s;
  };
  auto backward = [&](const K& k, int64_t b, int64_t e, const Segment& s) {
    V& x = entry(k);
    if (x.any && e > x.edge) e = x.edge;
    if (e > b) x.ns += static_cast<double>(e - b);
    x.edge = x.any ? std::min(x.edge, b) : b;
    x.any = true;
    x.example = s;
  };
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> pieces;
  // [b, e) on a thread, split by region when markers exist; pieces go to `add` last first when
  // `reversed`.
  auto add = [&](K k, int64_t b, int64_t e, const Segment& s, uint32_t thread, bool reversed, auto&& put) {
    if (!split) {
      put(k, b, e, s);
      return;
    }
    pieces.clear();
    regions->split(thread, b, std::max(b, e),
                   [&](uint32_t st, int64_t pb, int64_t pe) { pieces.push_back({regions->innermost(st), {pb, pe}}); });
    if (reversed) std::reverse(pieces.begin(), pieces.end());
    for (const auto& pc : pieces) {
      k.region = pc.first;
      put(k, pc.second.first, pc.second.second, s);
    }
  };
  // MPI calls in timeline order: by begin.
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const TimelineEvent& te = tl.ev[i];
    add(K{tl.callsite(i), 0, te.e.call, 0, 0}, te.begin, te.end, Segment{te.begin, te.end, i, kNoEvent, SegmentKind::Mpi},
        tl.thread_of(i), false, forward);
  }
  // The compute before a call follows the call's own thread's previous one (tl.prev), as on
  // the path; the timeline's previous event may be another thread's. It ends where the call
  // begins: backwards in timeline order, the intervals come by decreasing end.
  for (uint32_t i = static_cast<uint32_t>(tl.ev.size()); i-- > 0;) {
    const TimelineEvent& te = tl.ev[i];
    const uint32_t p = tl.prev[i];
    if (p == kNoEvent) continue;
    const TimelineEvent& pe = tl.ev[p];
    add(K{tl.callsite(p), tl.callsite(i), pe.e.call, static_cast<uint32_t>(te.e.call) | 0x10000u, 0}, pe.end, te.begin,
        Segment{pe.end, te.begin, i, p, SegmentKind::Compute}, tl.thread_of(i), true, backward);
  }
  for (auto& [k, v] : acc) {
    auto it = want.find(describe_activity(v.example, tl, names, k.region ? regions->name(k.region) : ""));
    if (it != want.end()) out[it->second] += v.ns;
  }
  return out;
}

}  // namespace cpath
