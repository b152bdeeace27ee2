// The twin shares trace reading (RankTrace, the decoded events, communicator names) with
// libcpath and nothing else: event order, request tracking, the message and collective rules
// and the binning are written again here.
#include "communication.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>

#include "call_info.h"
#include "comm_name.h"
#include "load_traces.h"

namespace cpath {
namespace ref {

namespace {

// What a collective call moved, by name: S = sent, R = received, in terms of the recorded
// payload b, the communicator size n and whether the caller is the root.
enum Move { kNothing, kRootOut, kRootIn, kReduce, kInOut, kGatherAll, kScatterBlock, kOutUnknownIn, kUnknownOutIn,
            kFileIn, kFileOut };

const std::map<std::string, Move>& moves() {
  static const std::map<std::string, Move> m = {
      {"MPI_Bcast", kRootOut}, {"MPI_Ibcast", kRootOut}, {"MPI_Scatter", kRootOut}, {"MPI_Iscatter", kRootOut},
      {"MPI_Scatterv", kRootOut}, {"MPI_Iscatterv", kRootOut},
      {"MPI_Gather", kRootIn}, {"MPI_Igather", kRootIn}, {"MPI_Gatherv", kRootIn}, {"MPI_Igatherv", kRootIn},
      {"MPI_Reduce", kReduce}, {"MPI_Ireduce", kReduce},
      {"MPI_Allreduce", kInOut}, {"MPI_Iallreduce", kInOut}, {"MPI_Scan", kInOut}, {"MPI_Iscan", kInOut},
      {"MPI_Exscan", kInOut}, {"MPI_Iexscan", kInOut}, {"MPI_Alltoall", kInOut}, {"MPI_Ialltoall", kInOut},
      {"MPI_Allgather", kGatherAll}, {"MPI_Iallgather", kGatherAll},
      {"MPI_Reduce_scatter_block", kScatterBlock}, {"MPI_Ireduce_scatter_block", kScatterBlock},
      {"MPI_Reduce_scatter", kOutUnknownIn}, {"MPI_Ireduce_scatter", kOutUnknownIn},
      {"MPI_Allgatherv", kUnknownOutIn}, {"MPI_Iallgatherv", kUnknownOutIn}, {"MPI_Alltoallv", kUnknownOutIn},
      {"MPI_Ialltoallv", kUnknownOutIn}, {"MPI_Alltoallw", kUnknownOutIn}, {"MPI_Ialltoallw", kUnknownOutIn},
      {"MPI_Neighbor_allgather", kUnknownOutIn}, {"MPI_Neighbor_allgatherv", kUnknownOutIn},
      {"MPI_Neighbor_alltoall", kUnknownOutIn}, {"MPI_Neighbor_alltoallv", kUnknownOutIn},
      {"MPI_Neighbor_alltoallw", kUnknownOutIn}, {"MPI_Ineighbor_allgather", kUnknownOutIn},
      {"MPI_Ineighbor_allgatherv", kUnknownOutIn}, {"MPI_Ineighbor_alltoall", kUnknownOutIn},
      {"MPI_Ineighbor_alltoallv", kUnknownOutIn}, {"MPI_Ineighbor_alltoallw", kUnknownOutIn},
      {"MPI_File_read_all", kFileIn}, {"MPI_File_read_at_all", kFileIn}, {"MPI_File_read_ordered", kFileIn},
      {"MPI_File_iread_all", kFileIn}, {"MPI_File_iread_at_all", kFileIn},
      {"MPI_File_write_all", kFileOut}, {"MPI_File_write_at_all", kFileOut}, {"MPI_File_write_ordered", kFileOut},
      {"MPI_File_iwrite_all", kFileOut}, {"MPI_File_iwrite_at_all", kFileOut}};
  return m;
}

int bin_of(uint64_t bytes) {
  int k = 0;
  while (k < 64 && (bytes >> k) != 0) ++k;  // smallest k with bytes < 2^k
  return k;
}

struct Message {
  int32_t dst;
  uint64_t bytes;
  bool cancelled = false;
};

struct Template {  // a persistent request
  bool send = false;
  int32_t dst = -1;  // world rank, -1 if not a countable send
  uint64_t bytes = 0;
  long active = -1;  // message of the current activation
  bool completed = false;
};

struct Pending {  // a non-persistent request
  long message = -1;  // index of its message, -1 if not a countable send
  bool completed = false;
};

struct RankState {
  const RankTrace& t;
  std::vector<Message> messages;
  std::unordered_map<uint64_t, std::deque<Pending>> pending;
  std::unordered_map<uint64_t, Template> templates;
  std::unordered_map<uint64_t, int32_t> objects;  // window/file -> communicator record
  explicit RankState(const RankTrace& trace) : t(trace) {}

  // World rank a send on `rec` to `peer` reaches, or -1 when it moves nothing countable.
  int32_t destination(int32_t rec, int32_t peer) const {
    if (rec < 0 || peer < 0) return -1;
    // An intercommunicator's peer is in its remote group (unknown: another job).
    return t.comm_table.peer_world_rank(static_cast<size_t>(rec), peer);
  }
  long add_message(int32_t dst, uint64_t bytes) {
    if (dst < 0) return -1;
    messages.push_back({dst, bytes});
    return static_cast<long>(messages.size()) - 1;
  }
  void complete(uint64_t handle, bool cancelled, bool frees) {
    auto it = pending.find(handle);
    if (it != pending.end() && !it->second.empty()) {
      Pending& p = it->second.front();
      if (!p.completed && cancelled && p.message >= 0) messages[static_cast<size_t>(p.message)].cancelled = true;
      p.completed = true;
      if (frees) {
        it->second.pop_front();
        if (it->second.empty()) pending.erase(it);
      }
      return;
    }
    auto tt = templates.find(handle);
    if (tt == templates.end() || tt->second.completed) return;
    if (cancelled && tt->second.active >= 0) messages[static_cast<size_t>(tt->second.active)].cancelled = true;
    tt->second.completed = true;
  }
};

struct Ev {
  int64_t begin;
  uint32_t thread, index;
};

}  // namespace

CommMatrices communication(const std::vector<RankTrace>& ranks) {
  CommMatrices out;
  std::map<std::pair<int32_t, int32_t>, std::pair<uint64_t, uint64_t>> p2p;
  std::map<std::tuple<std::string, std::string, int32_t>, std::tuple<int32_t, uint64_t, int64_t, int64_t, int64_t>> coll;
  std::map<std::tuple<int32_t, int, int>, uint64_t> hist;
  for (const RankTrace& t : ranks) {
    RankState st(t);
    std::vector<Ev> order;
    for (uint32_t th = 0; th < t.threads.size(); ++th)
      for (uint32_t i = 0; i < t.threads[th].events.size(); ++i)
        order.push_back({t.global_ns(t.threads[th].events[i].t_begin), th, i});
    std::sort(order.begin(), order.end(), [](const Ev& a, const Ev& b) {
      return std::tie(a.begin, a.thread, a.index) < std::tie(b.begin, b.thread, b.index);
    });
    for (const Ev& ev : order) {
      const DecodedThread& d = t.threads[ev.thread];
      const Event& e = d.events[ev.index];
      const CallInfo& ci = call_info(e.call);
      const bool failed = e.flags & kFlagError;
      const int32_t rec = (ci.fields & kField_comm) ? t.comm_record(e.comm, e.t_begin) : -1;
      if ((ci.fields & kField_obj) && (ci.fields & kField_comm) && e.obj) st.objects[e.obj] = rec;
      switch (ci.kind) {
        case CallKind::Send: {
          const int32_t dst = failed ? -1 : st.destination(rec, e.peer);
          if (ci.flags & kCallPersistent) {
            st.pending.erase(e.req);
            Template tp;
            tp.send = true;
            tp.dst = st.destination(rec, e.peer);
            tp.bytes = e.bytes;
            tp.completed = true;
            st.templates[e.req] = tp;
          } else if (ci.flags & kCallNonBlocking) {
            st.pending[e.req].push_back({st.add_message(dst, e.bytes)});
          } else {
            st.add_message(dst, e.bytes);
          }
          break;
        }
        case CallKind::Sendrecv:
          st.add_message(failed ? -1 : st.destination(rec, e.peer), e.bytes);
          break;
        case CallKind::Start:
        case CallKind::Complete:
        case CallKind::RequestFree:
          break;
        case CallKind::Recv:
        case CallKind::Collective:
        case CallKind::Rma:
        case CallKind::Io:
        case CallKind::CommNew:
        case CallKind::Mrecv:
          if ((ci.flags & kCallPersistent) && e.req) {
            st.pending.erase(e.req);
            st.templates[e.req] = Template{};
            st.templates[e.req].completed = true;
          } else if ((ci.flags & kCallNonBlocking) && e.req && ci.kind != CallKind::Mrecv) {
            st.pending[e.req].push_back({});
          } else if (ci.kind == CallKind::Mrecv && e.req2) {
            st.pending[e.req2].push_back({});
          }
          break;
        default:
          break;
      }
      if (ci.kind == CallKind::Start) {
        const bool list = ci.fields & kField_reqlist;
        const uint32_t n = list ? e.list_count : 1;
        for (uint32_t k = 0; k < n; ++k) {
          const uint64_t h = list ? d.reqlists[e.list_begin + k] : e.req;
          auto it = st.templates.find(h);
          if (it == st.templates.end()) continue;
          it->second.active = it->second.send && !failed ? st.add_message(it->second.dst, it->second.bytes) : -1;
          it->second.completed = false;
        }
      } else if (ci.kind == CallKind::Complete) {
        const bool frees = !(ci.flags & kCallNoFree);
        for (uint32_t k = 0; k < e.list_count; ++k) {
          const Completion& c = d.completions[e.list_begin + k];
          st.complete(c.req, c.cancelled, frees);
        }
      } else if (ci.kind == CallKind::RequestFree) {
        auto it = st.pending.find(e.req);
        if (it != st.pending.end() && !it->second.empty()) {
          it->second.pop_front();
          if (it->second.empty()) st.pending.erase(it);
        } else {
          st.templates.erase(e.req);
        }
      }
      // An intercommunicator made between two groups of this job: a collective on it.
      const bool new_inter = ci.kind == CallKind::CommNew && (ci.flags & kCallInter) && e.newcomm > 0 &&
                             static_cast<size_t>(e.newcomm) <= t.comms.size() &&
                             (t.comms[static_cast<size_t>(e.newcomm) - 1].flags & kCommInterKnown);
      const bool collective = ci.kind == CallKind::Collective || new_inter ||
                              (ci.kind == CallKind::CommNew && !(ci.flags & (kCallGroupOnly | kCallInter)));
      if (collective && !failed) {
        int32_t c = new_inter ? e.newcomm - 1 : rec;
        if ((ci.fields & kField_obj) && !(ci.fields & kField_comm)) {
          auto it = st.objects.find(e.obj);
          c = it == st.objects.end() ? -1 : it->second;
        }
        const CommRecord* cr = c >= 0 ? &t.comms[static_cast<size_t>(c)] : nullptr;
        const int64_t n = cr && cr->size > 0 ? cr->size : 1;
        const bool root = cr && e.root >= 0 && e.root == cr->local_rank;
        const int64_t b = static_cast<int64_t>(e.bytes);
        // The large-count (_c) and persistent (_init) forms are looked up as the plain call.
        std::string plain = ci.name;
        for (const char* suffix : {"_init", "_c"}) {
          const size_t n = std::strlen(suffix);
          if (plain.size() > n && plain.compare(plain.size() - n, n, suffix) == 0) plain.resize(plain.size() - n);
        }
        auto mv = moves().find(plain);
        int64_t s = 0, r = 0;
        switch (mv == moves().end() ? kNothing : mv->second) {
          case kNothing: break;
          case kRootOut: s = root ? b : 0; r = root ? 0 : b; break;
          case kRootIn: s = root ? 0 : b; r = root ? b : 0; break;
          case kReduce: s = b; r = root ? b : 0; break;
          case kInOut: s = b; r = b; break;
          case kGatherAll: s = b / n; r = b; break;
          case kScatterBlock: s = b; r = b / n; break;
          case kOutUnknownIn: s = b; r = -1; break;
          case kUnknownOutIn: s = -1; r = b; break;
          case kFileIn: r = b; break;
          case kFileOut: s = b; break;
        }
        if (cr && (cr->flags & kCommInter) && (s != 0 || r != 0)) s = r = -1;
        auto key = std::make_tuple(c >= 0 ? comm_name(t, c) : std::string("unknown"), std::string(ci.name), t.rank);
        auto [it, fresh] = coll.try_emplace(key, cr ? cr->size : 0, 0, 0, 0, 0);
        auto& [size, calls, sent, recv, ns] = it->second;
        ++calls;
        sent = (sent < 0 || s < 0) ? -1 : sent + s;
        recv = (recv < 0 || r < 0) ? -1 : recv + r;
        ns += std::max<int64_t>(0, t.global_ns(e.t_end) - t.global_ns(e.t_begin));
        ++hist[{t.rank, 1, bin_of(e.bytes)}];
        (void)fresh;
        (void)size;
      }
    }
    for (const Message& m : st.messages) {
      if (m.cancelled) continue;
      auto& v = p2p[{t.rank, m.dst}];
      v.first += m.bytes;
      ++v.second;
      ++hist[{t.rank, 0, bin_of(m.bytes)}];
    }
  }
  for (const auto& [k, v] : p2p) out.p2p.emplace_back(k.first, k.second, v.first, v.second);
  for (const auto& [k, v] : coll)
    out.collectives.emplace_back(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<0>(v), std::get<1>(v),
                                 std::get<2>(v), std::get<3>(v), std::get<4>(v));
  for (const auto& [k, v] : hist) out.histogram.emplace_back(std::get<0>(k), std::get<1>(k), std::get<2>(k), v);
  return out;
}

namespace {

void print(const CommMatrices& m, FILE* p2p, FILE* coll, FILE* hist) {
  if (p2p) {
    std::fprintf(p2p, "src,dst,bytes,messages\n");
    for (const auto& [s, d, b, n] : m.p2p) std::fprintf(p2p, "%d,%d,%" PRIu64 ",%" PRIu64 "\n", s, d, b, n);
  }
  if (coll) {
    std::fprintf(coll, "comm,op,rank,comm_size,calls,bytes_sent,bytes_recv,time_ns\n");
    for (const auto& [c, op, r, size, calls, s, rcv, ns] : m.collectives) {
      std::fprintf(coll, "%s,%s,%d,%d,%" PRIu64 ",", c.c_str(), op.c_str(), r, size, calls);
      if (s >= 0) std::fprintf(coll, "%" PRId64, s);
      std::fprintf(coll, ",");
      if (rcv >= 0) std::fprintf(coll, "%" PRId64, rcv);
      std::fprintf(coll, ",%" PRId64 "\n", ns);
    }
  }
  if (hist) {
    std::fprintf(hist, "rank,kind,bin,count\n");
    for (const auto& [r, k, b, n] : m.histogram)
      std::fprintf(hist, "%d,%s,%d,%" PRIu64 "\n", r, k == 0 ? "p2p" : "collective", b, n);
  }
}

}  // namespace

int communication_main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cpath-ref --comm DIR [OUTDIR]\n");
    return 2;
  }
  std::vector<RankTrace> ranks;
  if (!load_traces(argv[1], &ranks)) return 2;
  const CommMatrices m = communication(ranks);
  if (argc < 3) {
    print(m, stdout, nullptr, nullptr);
    return 0;
  }
  const std::string out = argv[2];
  FILE* f[3] = {std::fopen((out + "/comm_p2p.csv").c_str(), "w"), std::fopen((out + "/comm_collectives.csv").c_str(), "w"),
                std::fopen((out + "/comm_histogram.csv").c_str(), "w")};
  const bool ok = f[0] && f[1] && f[2];
  if (ok) print(m, f[0], f[1], f[2]);
  for (FILE* x : f)
    if (x) std::fclose(x);
  if (!ok) std::fprintf(stderr, "cpath-ref: cannot write into %s\n", out.c_str());
  return ok ? 0 : 1;
}

}  // namespace ref
}  // namespace cpath
