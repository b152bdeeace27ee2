// cpath-read: prints libcpath trace files (option dump=1) as text.
//   cpath-read [--events] FILE...   header, communicators and every record
//   cpath-read --summary FILE...    per-rank call counts and bytes, and point-to-point ops
//                                   (actual sources/tags of wildcard receives resolved)
//   cpath-read --list               the MPI functions libcpath wraps
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "call_info.h"
#include "comm_name.h"
#include "comm_unification.h"
#include "ops.h"
#include "timeline.h"
#include "trace_file.h"

using namespace cpath;

static std::string address(const RankTrace& t, uint64_t addr) {
  const int m = t.modules.find(addr);
  char buf[64];
  if (m < 0) {
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
    return buf;
  }
  const ModuleInfo& mi = t.modules.modules()[static_cast<size_t>(m)];
  std::snprintf(buf, sizeof buf, "+0x%" PRIx64, addr - mi.base);
  return basename_of(mi.path) + buf;
}

// With stack > 1 the value is a call-path number: its frames, innermost first, '<'-separated
// (the event line stays one word per field).
static std::string site(const RankTrace& t, uint64_t v) {
  if (!t.call_paths.active()) return address(t, v);
  uint32_t n = 0;
  const uint64_t* f = t.call_paths.path(v, &n);
  if (!n) return "(none)";
  std::string out;
  for (uint32_t i = 0; i < n; ++i) out += (i ? "<" : "") + address(t, f[i]);
  return out;
}

// User region markers (include/cpath.h): "# region <thread> <kind> at=<aligned ns> next_event=<k> name=<name>"
// (comment lines, so tools that read the event lines skip them).
static const char* region_kind(RegionKind k) {
  return k == RegionKind::Begin ? "begin" : k == RegionKind::End ? "end" : "phase";
}

static const std::string& region_name(const DecodedThread& d, uint32_t id) {
  static const std::string innermost = "(innermost)";
  return id == 0 || id >= d.region_names.size() ? innermost : d.region_names[id];
}

static void print_regions(const RankTrace& t) {
  for (const DecodedThread& d : t.threads)
    for (const RegionMark& m : d.regions)
      std::printf("# region %u %s at=%" PRId64 " next_event=%u name=%s\n", m.thread, region_kind(m.kind),
                  t.global_ns(m.tick), m.next_event, region_name(d, m.id).c_str());
}

static void print_events(const RankTrace& t) {
  std::printf("# rank %d of %d\n", t.rank, t.size);
  for (const auto& kv : t.meta) std::printf("# %s=%s\n", kv.first.c_str(), kv.second.c_str());
  std::printf("# align offset_ns=%.0f drift=%.3e ref_local_ns=%" PRId64 " error_ns=%.0f\n", t.align.offset_ns,
              t.align.drift, t.align.ref_local_ns, t.align_error_ns);
  std::printf("# clock ns0=%" PRId64 " ns_per_tick=%.9f inject_skew_ns=%" PRId64 " inject_drift=%.3e\n", t.ticks.ns0,
              t.ticks.ns_per_tick, t.ticks.inject_skew_ns, t.ticks.inject_drift);
  for (size_t i = 0; i < t.comms.size(); ++i) {
    const CommRecord& c = t.comms[i];
    std::printf("# comm %zu %s handle=0x%" PRIx64 " local_rank=%d size=%d flags=0x%x group=", i, comm_name(t, static_cast<int32_t>(i)).c_str(),
                c.handle, c.local_rank, c.size, c.flags);
    const int32_t g = t.comm_table.group[i];
    if (g < 0) {
      std::printf("?");
    } else {
      const auto& ranks = t.comm_table.groups[static_cast<size_t>(g)];
      for (size_t k = 0; k < ranks.size(); ++k) std::printf("%s%d", k ? "," : "", ranks[k]);
    }
    std::printf("\n");
  }
  for (const CommTopology& c : t.topologies) {
    std::printf("# topology comm %d kind=%d sources=", c.record, static_cast<int>(c.kind));
    for (size_t k = 0; k < c.sources.size(); ++k) std::printf("%s%d", k ? "," : "", c.sources[k]);
    std::printf(" destinations=");
    for (size_t k = 0; k < c.destinations.size(); ++k) std::printf("%s%d", k ? "," : "", c.destinations[k]);
    std::printf("\n");
  }
  Timeline tl = build_timeline(t);
  // Collectives counted while recording was off: not calls, shown as comments.
  for (const TimelineGap& g : tl.gaps)
    std::printf("# gap before=%u comm=%s obj=0x%" PRIx64 " collectives=%" PRIu64 "\n", g.before,
                comm_name(t, g.comm).c_str(), g.obj, g.count);
  const int64_t t0 = tl.ev.empty() ? 0 : tl.ev.front().begin;
  // Begins below are relative to the first event; this is that event's begin on the aligned
  // clock, which ranks share (the job's clock after alignment).
  std::printf("# events_origin_ns=%" PRId64 "\n", t0);
  for (size_t i = 0; i < tl.ev.size(); ++i) {
    const TimelineEvent& te = tl.ev[i];
    const EventCore& e = te.e;
    const CallInfo& ci = call_info(e.call);
    std::printf("%d %u %zu %s begin=%" PRId64 " dur=%" PRId64 " site=%s", t.rank, tl.thread_of(static_cast<uint32_t>(i)), i, ci.name, te.begin - t0,
                te.end - te.begin, site(t, tl.callsite(static_cast<uint32_t>(i))).c_str());
    if (ci.fields & kField_peer) std::printf(" peer=%d", e.peer);
    if (ci.fields & kField_tag) std::printf(" tag=%d", e.tag);
    if (ci.fields & kField_peer2) std::printf(" peer2=%d", tl.second_peer(static_cast<uint32_t>(i)).peer);
    if (ci.fields & kField_tag2) std::printf(" tag2=%d", tl.second_peer(static_cast<uint32_t>(i)).tag);
    if (ci.fields & kField_comm) std::printf(" comm=%s", comm_name(t, te.comm).c_str());
    if (ci.fields & kField_root) std::printf(" root=%d", tl.root(static_cast<uint32_t>(i)));
    if (ci.fields & kField_bytes) std::printf(" bytes=%" PRIu64, tl.bytes(static_cast<uint32_t>(i)));
    if (ci.fields & kField_req) std::printf(" req=0x%" PRIx64, tl.args[i].req);
    if (ci.fields & kField_req2) std::printf(" req2=0x%" PRIx64, tl.args[i].req2);
    if (ci.fields & kField_flag) std::printf(" flag=%d", e.flag);
    if (ci.fields & kField_newcomm) std::printf(" newcomm=%d", tl.args[i].newcomm - 1);
    if (ci.fields & kField_aux) std::printf(" aux=%" PRId64, tl.args[i].aux);
    if (ci.fields & kField_reqlist) {
      std::printf(" reqs=");
      for (uint32_t k = 0; k < e.list_count; ++k) std::printf("%s0x%" PRIx64, k ? "," : "", tl.reqlists[e.list_begin + k]);
    }
    uint32_t n = 0;
    const uint64_t* hs = tl.polls(static_cast<uint32_t>(i), &n);
    if (n) {
      std::printf(" polled=");
      for (uint32_t k = 0; k < n; ++k) std::printf("%s0x%" PRIx64, k ? "," : "", hs[k]);
    }
    if (ci.fields & kField_completions) {
      std::printf(" done=");
      for (uint32_t k = 0; k < e.list_count; ++k) {
        const Completion& c = tl.completions[e.list_begin + k];
        std::printf("%s0x%" PRIx64 "(src=%d,tag=%d%s)", k ? "," : "", c.req, c.source, c.tag, c.cancelled ? ",cancelled" : "");
      }
    }
    if (e.flags & kFlagError) std::printf(" error");
    if (e.flags & kFlagAnySource) std::printf(" any_source");
    if (e.flags & kFlagAnyTag) std::printf(" any_tag");
    // A merged run of unsuccessful polls is one record: the calls it stands for.
    const uint64_t calls = tl.calls(static_cast<uint32_t>(i));
    if (calls > 1) std::printf(" calls=%" PRIu64, calls);
    std::printf("\n");
  }
  print_regions(t);
}

static void print_summary(const RankTrace& t) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> calls;
  uint64_t events = 0;
  uint64_t merged = 0;
  for (const DecodedThread& d : t.threads) {
    for (const Event& e : d.events) {
      auto& c = calls[call_info(e.call).name];
      ++c.first;
      c.second += e.bytes;
      ++events;
    }
    // Calls, not records: a merged run of polls counts every poll.
    for (const auto& [ev, n] : d.repeats) calls[call_info(d.events[ev].call).name].first += n;
    merged += merged_polls(d);
  }
  std::printf("rank %d events %" PRIu64 " trace_bytes %" PRIu64 " threads %zu merged_polls %" PRIu64 "\n", t.rank, events,
              t.trace_bytes, t.threads.size(), merged);
  for (const auto& kv : calls)
    std::printf("rank %d call %s count=%" PRIu64 " bytes=%" PRIu64 "\n", t.rank, kv.first.c_str(), kv.second.first,
                kv.second.second);
  Timeline tl = build_timeline(t);
  OpTable ops = build_ops(tl);
  // kind, call, comm, peer(local), world peer, tag -> count, bytes
  std::map<std::tuple<std::string, std::string, std::string, int, int, int>, std::pair<uint64_t, uint64_t>> p2p;
  for (const Op& o : ops.ops) {
    if (o.kind != OpKind::Send && o.kind != OpKind::Recv) continue;
    const char* kind = o.kind == OpKind::Send ? "send" : "recv";
    auto& v = p2p[{kind, call_info(tl.ev[o.args].e.call).name, comm_name(t, o.comm), o.peer, tl.peer_world_rank(o.comm, o.peer),
                   o.tag}];
    ++v.first;
    v.second += op_bytes(tl, o);
  }
  for (const auto& kv : p2p) {
    const auto& [kind, call, comm, peer, wpeer, tag] = kv.first;
    std::printf("rank %d %s %s comm=%s peer=%d wpeer=%d tag=%d count=%" PRIu64 " bytes=%" PRIu64 "\n", t.rank,
                kind.c_str(), call.c_str(), comm.c_str(), peer, wpeer, tag, kv.second.first, kv.second.second);
  }
  std::printf("rank %d unresolved unknown_requests=%" PRIu64 " never_completed=%" PRIu64 "\n", t.rank,
              ops.unknown_requests, ops.never_completed);
  std::map<std::string, std::map<std::string, uint64_t>> regions;
  for (const DecodedThread& d : t.threads)
    for (const RegionMark& m : d.regions) ++regions[region_name(d, m.id)][region_kind(m.kind)];
  for (const auto& [name, kinds] : regions) {
    std::printf("rank %d region", t.rank);
    for (const auto& [kind, n] : kinds) std::printf(" %s=%" PRIu64, kind.c_str(), n);
    std::printf(" name=%s\n", name.c_str());
  }
}

int main(int argc, char** argv) {
  bool summary = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--list")) {
      for (unsigned c = 1; c < kNumCalls; ++c)
        if (kCallInfo[c].kind != CallKind::Gap) std::printf("%s\n", kCallInfo[c].name);
      return 0;
    }
    if (!std::strcmp(argv[i], "--summary")) summary = true;
    else if (!std::strcmp(argv[i], "--events")) summary = false;
    else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
      std::printf("usage: cpath-read [--events|--summary] TRACE.cpt...\n       cpath-read --list\n");
      return 0;
    } else files.push_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "cpath-read: no trace file given (try --help)\n");
    return 2;
  }
  int rc = 0;
  for (const std::string& f : files) {
    RankTrace t;
    std::string err;
    if (!read_trace_file(f, &t, &err)) {
      std::fprintf(stderr, "cpath-read: %s\n", err.c_str());
      rc = 1;
      continue;
    }
    if (summary) print_summary(t);
    else print_events(t);
  }
  return rc;
}
