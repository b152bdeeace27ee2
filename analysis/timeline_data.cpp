#include "timeline_data.h"

#include <algorithm>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "call_info.h"
#include "comm_name.h"
#include "map_cache.h"
#include "path_profile.h"

namespace cpath {

namespace {

class Strings {
 public:
  explicit Strings(std::vector<std::string>* s) : s_(s) {
    for (uint32_t i = 0; i < s_->size(); ++i) index_.emplace((*s_)[i], i);
  }
  uint32_t id(const std::string& v) {
    auto it = index_.find(v);
    if (it != index_.end()) return it->second;
    s_->push_back(v);
    return index_.emplace(v, static_cast<uint32_t>(s_->size() - 1)).first->second;
  }

 private:
  std::vector<std::string>* s_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace

std::vector<TlArrival> path_arrivals(const WalkResult& w, const RankPag& pag, int me) {
  std::vector<TlArrival> out;
  for (const Segment& s : w.path) {
    if (s.kind != SegmentKind::Mpi || s.passed) continue;
    const PagTarget t = pag.end_edge(s.event);
    if (t.rank != me && t.rank >= 0) out.push_back({t.rank, t.begin});
  }
  std::sort(out.begin(), out.end(), [](const TlArrival& a, const TlArrival& b) { return a.t < b.t; });
  return out;
}

TimelinePart build_timeline_part(const Timeline& tl, WalkResult& w, std::vector<TlArrival> arrivals,
                                 SiteNames& names, int me) {
  TimelinePart p;
  p.rank = me;
  if (tl.trace) p.host = tl.trace->meta_value("host");
  Strings str(&p.strings);
  const uint32_t compute = str.id("compute");
  // What a slice names, numbered here once: the slices are made again each time the writer
  // reads them (TlSlices), from the timeline and these tables.
  struct Names {
    std::vector<uint32_t> call;  // by call id
    std::vector<uint32_t> site;  // by Timeline::sites index (0: none)
    std::vector<uint32_t> comm;  // by communicator record (0: none)
  };
  auto nm = std::make_shared<Names>();
  nm->call.assign(kNumCalls, 0);
  nm->site.assign(tl.sites.size(), 0);
  auto call = [&](uint16_t c) {
    uint32_t& n = nm->call[c < kNumCalls ? c : 0];
    if (!n) n = str.id(call_info(c).name);
    return n;
  };
  std::vector<uint32_t> threads;
  // Path segments, earliest first, each named once per distinct activity.
  using ActivityKey = std::tuple<int, uint16_t, uint64_t, uint16_t, uint64_t>;
  struct ActivityHash {
    size_t operator()(const ActivityKey& k) const {
      const uint64_t h = (std::get<2>(k) * 0x9E3779B97F4A7C15ull) ^ (std::get<4>(k) * 0xC2B2AE3D27D4EB4Full) ^
                         (static_cast<uint64_t>(std::get<0>(k)) << 40) ^
                         (static_cast<uint64_t>(std::get<1>(k)) << 20) ^ std::get<3>(k);
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<ActivityKey, uint32_t, ActivityHash> activity;
  MapCache<decltype(activity)> recent;  // a loop's path repeats a few activities
  const uint32_t startup = str.id("start-up");
  p.path.reserve(w.path.size());
  for (auto it = w.path.rbegin(); it != w.path.rend(); ++it) {
    const Segment& s = *it;
    TlPathSegment g;
    g.begin = s.begin;
    g.end = s.end;
    g.kind = s.kind == SegmentKind::Mpi ? TlPathKind::Mpi : s.kind == SegmentKind::Startup ? TlPathKind::Startup
                                                                                           : TlPathKind::Compute;
    const bool has_ev = s.kind != SegmentKind::Startup && s.event < tl.ev.size();
    const bool has_prev = s.kind == SegmentKind::Compute && s.prev != kNoEvent && s.prev < tl.ev.size();
    g.name = g.kind == TlPathKind::Mpi ? call(tl.ev[s.event].e.call) : g.kind == TlPathKind::Startup ? startup : compute;
    const auto key = std::make_tuple(static_cast<int>(s.kind), has_ev ? tl.ev[s.event].e.call : uint16_t{0},
                                     has_ev ? tl.callsite(s.event) : 0, has_prev ? tl.ev[s.prev].e.call : uint16_t{0},
                                     has_prev ? tl.callsite(s.prev) : 0);
    if (const uint32_t* id = recent.find(key)) {
      g.activity = *id;
    } else {
      auto a = activity.find(key);
      if (a == activity.end()) a = activity.emplace(key, str.id(describe_activity(s, tl, names))).first;
      recent.put(key, &a->second);
      g.activity = a->second;
    }
    p.path.push_back(g);
  }
  // The walk's segments are copied: their memory goes back before the slices are read.
  w.path.clear();
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const TimelineEvent& te = tl.ev[i];
    const uint32_t thread = tl.thread_of(i);
    if (std::find(threads.begin(), threads.end(), thread) == threads.end()) threads.push_back(thread);
    call(te.e.call);
    if ((call_info(te.e.call).fields & kField_comm) && te.comm >= 0 && tl.trace) {
      const size_t c = static_cast<size_t>(te.comm);
      if (c >= nm->comm.size()) nm->comm.resize(c + 1, 0);
      if (!nm->comm[c]) nm->comm[c] = str.id(comm_name(*tl.trace, te.comm));
    }
    if (te.e.site) {
      uint32_t& id = nm->site[te.e.site];
      if (!id) id = str.id(names.name(tl.sites[te.e.site]));
    }
  }
  std::sort(threads.begin(), threads.end());
  p.threads = std::move(threads);
  // tl outlives the part: the part is written, then dropped, before the analysis returns.
  p.slices.make(tl.ev.size(), [&tl, nm](size_t i) {
    const TimelineEvent& te = tl.ev[i];
    const EventCore& e = te.e;
    auto world = [&](int32_t local) -> int32_t {
      if (local < 0) return local;  // MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT keep their meaning
      const int32_t r = tl.peer_world_rank(te.comm, local);  // on an intercommunicator: the remote group
      return r >= 0 ? r : kTlNone;
    };
    TlSlice s;
    s.begin = te.begin;
    s.end = te.end;
    s.thread = tl.thread_of(static_cast<uint32_t>(i));
    s.name = nm->call[e.call < kNumCalls ? e.call : 0];
    const CallInfo& ci = call_info(e.call);
    if (ci.fields & kField_peer) s.peer = world(e.peer);
    if (ci.fields & kField_tag) s.tag = e.tag;
    if (ci.fields & (kField_peer2 | kField_tag2)) {
      const SecondPeer second = tl.second_peer(static_cast<uint32_t>(i));
      if (ci.fields & kField_peer2) s.peer2 = world(second.peer);
      if (ci.fields & kField_tag2) s.tag2 = second.tag;
    }
    if (ci.fields & kField_root) s.root = world(tl.root(static_cast<uint32_t>(i)));
    if (ci.fields & kField_bytes) s.bytes = static_cast<int64_t>(tl.bytes(static_cast<uint32_t>(i)));
    if ((ci.fields & kField_comm) && te.comm >= 0 && static_cast<size_t>(te.comm) < nm->comm.size())
      s.comm = nm->comm[static_cast<size_t>(te.comm)];
    s.site = nm->site[e.site];
    return s;
  });

  p.arrivals = std::move(arrivals);
  return p;
}

}  // namespace cpath
