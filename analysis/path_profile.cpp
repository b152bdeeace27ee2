#include "path_profile.h"

#include <unordered_map>

#include "call_info.h"

namespace cpath {

namespace {

std::string mpi_at(const Timeline& tl, uint32_t ev, SiteNames& names) {
  const Event& e = tl.ev[ev].e;
  return std::string(call_info(e.call).name) + " at " + names.name(e.callsite);
}

}  // namespace

std::string describe_activity(const Segment& s, const Timeline& tl, SiteNames& names) {
  switch (s.kind) {
    case SegmentKind::Startup:
      return "start-up before MPI_Init";
    case SegmentKind::Mpi:
      return mpi_at(tl, s.event, names);
    case SegmentKind::Compute:
    default:
      if (s.prev == kNoEvent) return "compute before " + mpi_at(tl, s.event, names);
      return "compute between " + mpi_at(tl, s.prev, names) + " and " + mpi_at(tl, s.event, names);
  }
}

PathProfile profile_path(const WalkResult& w, const Timeline& tl, SiteNames& names, int rank) {
  PathProfile p;
  p.call_ns.assign(kNumCalls, 0.0);
  p.call_count.assign(kNumCalls, 0.0);
  // Sum by raw (kind, call sites) first; names are built once per distinct activity.
  struct Key {
    uint8_t kind;
    uint16_t call_prev, call;
    uint64_t site_prev, site;
    bool operator==(const Key& o) const {
      return kind == o.kind && call_prev == o.call_prev && call == o.call && site_prev == o.site_prev && site == o.site;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return (k.site * 0x9e3779b97f4a7c15ull) ^ (k.site_prev + (static_cast<uint64_t>(k.call) << 17) +
                                                 (static_cast<uint64_t>(k.call_prev) << 34) + k.kind);
    }
  };
  struct Acc {
    double ns = 0, count = 0;
    Segment example;
  };
  std::unordered_map<Key, Acc, KeyHash> acc;
  for (const Segment& s : w.segments) {
    const double ns = static_cast<double>(s.end - s.begin);
    p.total_ns += ns;
    Key k{static_cast<uint8_t>(s.kind), 0, 0, 0, 0};
    if (s.kind == SegmentKind::Mpi) {
      p.mpi_ns += ns;
      const Event& e = tl.ev[s.event].e;
      p.call_ns[e.call] += ns;
      p.call_count[e.call] += 1;
      k.call = e.call;
      k.site = e.callsite;
    } else {
      p.compute_ns += ns;
      if (s.kind == SegmentKind::Startup) {
        p.startup_ns += ns;
      } else {
        const Event& e = tl.ev[s.event].e;
        k.call = e.call;
        k.site = e.callsite;
        if (s.prev != kNoEvent) {
          k.call_prev = tl.ev[s.prev].e.call;
          k.site_prev = tl.ev[s.prev].e.callsite;
        } else {
          k.call_prev = 0xffff;
        }
      }
    }
    Acc& a = acc[k];
    a.ns += ns;
    a.count += 1;
    a.example = s;
  }
  const std::string prefix = std::to_string(rank) + "\x1f";
  for (const auto& [k, a] : acc) {
    const SegmentKind kind = static_cast<SegmentKind>(k.kind);
    const char* kname = kind == SegmentKind::Mpi ? "mpi" : kind == SegmentKind::Startup ? "startup" : "compute";
    const std::string act = describe_activity(a.example, tl, names);
    auto& row = p.activities[prefix + kname + "\x1f" + act];
    row.resize(2, 0.0);
    row[0] += a.ns;
    row[1] += a.count;
    auto& b = p.path_by_activity[act];
    b.resize(1, 0.0);
    b[0] += a.ns;
    if (kind == SegmentKind::Mpi) {
      auto& site = p.sites[mpi_at(tl, a.example.event, names)];
      site.resize(2, 0.0);
      site[0] += a.ns;
      site[1] += a.count;
    }
  }
  return p;
}

std::vector<double> activity_totals(const std::vector<std::string>& activities, const Timeline& tl,
                                    SiteNames& names) {
  std::unordered_map<std::string, size_t> want;
  for (size_t i = 0; i < activities.size(); ++i) want.emplace(activities[i], i);
  std::vector<double> out(activities.size(), 0.0);
  // Aggregate by raw addresses first, name each distinct key once.
  struct K {
    uint64_t a, b;
    uint32_t ca, cb;
    bool operator==(const K& o) const { return a == o.a && b == o.b && ca == o.ca && cb == o.cb; }
  };
  struct H {
    size_t operator()(const K& k) const { return (k.a * 31 + k.b) ^ (static_cast<size_t>(k.ca) << 20) ^ k.cb; }
  };
  std::unordered_map<K, std::pair<double, Segment>, H> acc;
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const TimelineEvent& te = tl.ev[i];
    Segment m{te.begin, te.end, i, kNoEvent, SegmentKind::Mpi};
    auto& x = acc[K{te.e.callsite, 0, te.e.call, 0}];
    x.first += static_cast<double>(te.end - te.begin);
    x.second = m;
    if (i > 0) {
      const TimelineEvent& pe = tl.ev[i - 1];
      Segment c{pe.end, te.begin, i, i - 1, SegmentKind::Compute};
      auto& y = acc[K{pe.e.callsite, te.e.callsite, pe.e.call, static_cast<uint32_t>(te.e.call) | 0x10000u}];
      if (te.begin > pe.end) y.first += static_cast<double>(te.begin - pe.end);
      y.second = c;
    }
  }
  for (auto& [k, v] : acc) {
    auto it = want.find(describe_activity(v.second, tl, names));
    if (it != want.end()) out[it->second] += v.first;
  }
  return out;
}

}  // namespace cpath
