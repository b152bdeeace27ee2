#include "communication.h"

#include <algorithm>
#include <cstring>
#include <cctype>
#include <climits>
#include <exception>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "byte_io.h"
#include "call_info.h"
#include "comm_name.h"
#include "flat_index.h"
#include "tree_reduce.h"

namespace cpath {

namespace {

enum class Rule : uint8_t { None, RootSends, RootReceives, Reduce, Both, Allgather, ReduceScatterBlock, SentOnly,
                            ReceivedOnly, FileRead, FileWrite };

Rule rule_of(unsigned call) {
  const CallInfo& ci = call_info(call);
  std::string s = ci.name;
  if (s.rfind("MPI_", 0) == 0) s = s.substr(4);
  // MPI-4's large-count (_c) and persistent (_init) forms move what the plain call moves.
  auto strip = [&s](const char* suffix) {
    const size_t n = std::strlen(suffix);
    if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) s.resize(s.size() - n);
  };
  strip("_init");
  strip("_c");
  if ((ci.flags & kCallNonBlocking) && !(ci.flags & kCallPersistent) && !s.empty() && s[0] == 'I') s = s.substr(1);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "bcast" || s == "scatter" || s == "scatterv") return Rule::RootSends;
  if (s == "gather" || s == "gatherv") return Rule::RootReceives;
  if (s == "reduce") return Rule::Reduce;
  if (s == "allreduce" || s == "scan" || s == "exscan" || s == "alltoall") return Rule::Both;
  if (s == "allgather") return Rule::Allgather;
  if (s == "reduce_scatter_block") return Rule::ReduceScatterBlock;
  if (s == "reduce_scatter") return Rule::SentOnly;
  if (s == "allgatherv" || s == "alltoallv" || s == "alltoallw" || s.rfind("neighbor_", 0) == 0) return Rule::ReceivedOnly;
  if (s.rfind("file_", 0) == 0 && s.find("read") != std::string::npos) return Rule::FileRead;
  if (s.rfind("file_", 0) == 0 && s.find("write") != std::string::npos) return Rule::FileWrite;
  return Rule::None;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = [] {
    std::vector<Rule> t(kNumCalls);
    for (unsigned c = 0; c < kNumCalls; ++c) t[c] = rule_of(c);
    return t;
  }();
  return table;
}

// What one rank sends to rank 0.
struct LocalRows {
  std::vector<P2PPair> pairs;  // src = this rank
  struct Coll {
    int32_t rec;
    uint16_t call;
    CollectiveRow row;
  };
  std::vector<Coll> coll;
  uint64_t hist[kHistKinds][kSizeBins] = {};
  uint64_t inter_messages = 0, inter_bytes = 0, unresolved_messages = 0, unresolved_bytes = 0;
};

LocalRows local_rows(const Timeline& tl, const OpTable& ops) {
  LocalRows out;
  FlatIndex by_dst, by_coll;
  const RankTrace& t = *tl.trace;
  for (const Op& o : ops.ops) {
    if (o.kind == OpKind::Send) {
      if (o.cancelled || o.peer < 0 || o.comm < 0) continue;  // MPI_PROC_NULL moves nothing
      if (is_pscw_tag(o.tag)) continue;  // window synchronisation (rule 10), not the program's
      if (tl.ev[o.post].e.flags & kFlagError) continue;
      const uint64_t bytes = op_bytes(tl, o);
      // On an intercommunicator the peer is a rank of the remote group, known when both
      // groups are in this job.
      const int32_t dst = tl.peer_world_rank(o.comm, o.peer);
      if (dst < 0 && (t.comms[static_cast<size_t>(o.comm)].flags & kCommInter)) {
        ++out.inter_messages;
        out.inter_bytes += bytes;
        continue;
      }
      if (dst < 0) {
        ++out.unresolved_messages;
        out.unresolved_bytes += bytes;
        continue;
      }
      bool fresh = false;
      const uint32_t i = by_dst.find_or_add(static_cast<uint64_t>(dst), static_cast<uint32_t>(out.pairs.size()), &fresh);
      if (fresh) out.pairs.push_back({tl.rank, dst, 0, 0});
      out.pairs[i].bytes += bytes;
      ++out.pairs[i].messages;
      ++out.hist[kHistP2P][size_bin(bytes)];
    } else if (o.kind == OpKind::Collective) {
      const TimelineEvent& post = tl.ev[o.post];
      if (post.e.flags & kFlagError) continue;
      const unsigned call = tl.ev[o.args].e.call;
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(o.comm)) << 16) | call;
      bool fresh = false;
      const uint32_t i = by_coll.find_or_add(key, static_cast<uint32_t>(out.coll.size()), &fresh);
      if (fresh) {
        LocalRows::Coll c{o.comm, static_cast<uint16_t>(call), {}};
        c.row.rank = tl.rank;
        c.row.comm_size = o.comm >= 0 ? t.comms[static_cast<size_t>(o.comm)].size : 0;
        out.coll.push_back(c);
      }
      CollectiveRow& r = out.coll[i].row;
      const bool inter = o.comm >= 0 && (t.comms[static_cast<size_t>(o.comm)].flags & kCommInter);
      int64_t sent = 0, recv = 0;
      const uint64_t bytes = op_bytes(tl, o);
      const int32_t root = op_root(tl, o);
      collective_sent_received(call, bytes, r.comm_size, root >= 0 && root == tl.my_local_rank(o.comm), inter,
                               &sent, &recv);
      r.bytes_sent = (r.bytes_sent < 0 || sent < 0) ? kBytesUnknown : r.bytes_sent + sent;
      r.bytes_recv = (r.bytes_recv < 0 || recv < 0) ? kBytesUnknown : r.bytes_recv + recv;
      ++r.calls;
      r.time_ns += post.end - post.begin;
      ++out.hist[kHistCollective][size_bin(bytes)];
    }
  }
  std::sort(out.pairs.begin(), out.pairs.end(), [](const P2PPair& a, const P2PPair& b) { return a.dst < b.dst; });
  for (LocalRows::Coll& c : out.coll) c.row.comm = c.rec >= 0 ? comm_name(t, c.rec) : "unknown";
  return out;
}

std::vector<uint8_t> serialize(const LocalRows& l) {
  ByteWriter w;
  w.put<uint32_t>(static_cast<uint32_t>(l.pairs.size()));
  for (const P2PPair& p : l.pairs) {
    w.put<int32_t>(p.dst);
    w.put<uint64_t>(p.bytes);
    w.put<uint64_t>(p.messages);
  }
  w.put<uint32_t>(static_cast<uint32_t>(l.coll.size()));
  for (const LocalRows::Coll& c : l.coll) {
    w.put_string(c.row.comm);
    w.put<uint16_t>(c.call);
    w.put<int32_t>(c.row.comm_size);
    w.put<uint64_t>(c.row.calls);
    w.put<int64_t>(c.row.bytes_sent);
    w.put<int64_t>(c.row.bytes_recv);
    w.put<int64_t>(c.row.time_ns);
  }
  uint32_t nonzero = 0;
  for (int k = 0; k < kHistKinds; ++k)
    for (int b = 0; b < kSizeBins; ++b) nonzero += l.hist[k][b] != 0;
  w.put<uint32_t>(nonzero);
  for (int k = 0; k < kHistKinds; ++k)
    for (int b = 0; b < kSizeBins; ++b)
      if (l.hist[k][b]) {
        w.put<uint8_t>(static_cast<uint8_t>(k));
        w.put<uint8_t>(static_cast<uint8_t>(b));
        w.put<uint64_t>(l.hist[k][b]);
      }
  w.put<uint64_t>(l.inter_messages);
  w.put<uint64_t>(l.inter_bytes);
  w.put<uint64_t>(l.unresolved_messages);
  w.put<uint64_t>(l.unresolved_bytes);
  return std::move(w.bytes());
}

// Appends rank `src`'s rows to `r`; false if the bytes do not parse.
bool parse_rows(const uint8_t* p, size_t n, int32_t src, CommunicationReport* r, uint64_t extra[4]) {
  ByteReader in(p, n);
  uint32_t count = 0;
  if (!in.get(count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    P2PPair q;
    q.src = src;
    if (!in.get(q.dst) || !in.get(q.bytes) || !in.get(q.messages)) return false;
    r->pairs.push_back(q);
  }
  if (!in.get(count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    CollectiveRow c;
    uint16_t call = 0;
    c.rank = src;
    if (!in.get_string(c.comm) || !in.get(call) || !in.get(c.comm_size) || !in.get(c.calls) || !in.get(c.bytes_sent) ||
        !in.get(c.bytes_recv) || !in.get(c.time_ns))
      return false;
    c.op = call_info(call).name;
    r->collectives.push_back(std::move(c));
  }
  if (!in.get(count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    HistogramRow h;
    h.rank = src;
    if (!in.get(h.kind) || !in.get(h.bin) || !in.get(h.count) || h.kind >= kHistKinds || h.bin >= kSizeBins) return false;
    r->histogram.push_back(h);
    r->job_histogram[h.kind][h.bin] += h.count;
  }
  for (int k = 0; k < 4; ++k) {
    uint64_t v = 0;
    if (!in.get(v)) return false;
    extra[k] += v;
  }
  return in.ok();
}

// Above this, rank 0 does not gather the matrix (it would need that much memory).
constexpr uint64_t kGatherLimit = 4ull << 30;
// Largest Gatherv in one round (its counts and displacements are ints).
constexpr uint64_t kRoundBytes = 1ull << 30;

void summarise(CommunicationReport* r, uint32_t top) {
  for (const P2PPair& p : r->pairs) {
    r->p2p_bytes += p.bytes;
    r->p2p_messages += p.messages;
  }
  r->top = r->pairs;
  auto by_bytes = [](const P2PPair& a, const P2PPair& b) {
    return std::tie(b.bytes, b.messages, a.src, a.dst) < std::tie(a.bytes, a.messages, b.src, b.dst);
  };
  const size_t n = std::min<size_t>(top, r->top.size());
  std::partial_sort(r->top.begin(), r->top.begin() + static_cast<long>(n), r->top.end(), by_bytes);
  r->top.resize(n);

  std::sort(r->collectives.begin(), r->collectives.end(), [](const CollectiveRow& a, const CollectiveRow& b) {
    return std::tie(a.comm, a.op, a.rank) < std::tie(b.comm, b.op, b.rank);
  });
  std::vector<CollectiveSummary> sums;
  for (const CollectiveRow& c : r->collectives) {
    if (sums.empty() || sums.back().comm != c.comm || sums.back().op != c.op) {
      CollectiveSummary s;
      s.comm = c.comm;
      s.op = c.op;
      s.comm_size = c.comm_size;
      sums.push_back(s);
    }
    CollectiveSummary& s = sums.back();
    ++s.ranks;
    s.calls += c.calls;
    s.bytes_sent = (s.bytes_sent < 0 || c.bytes_sent < 0) ? kBytesUnknown : s.bytes_sent + c.bytes_sent;
    s.bytes_recv = (s.bytes_recv < 0 || c.bytes_recv < 0) ? kBytesUnknown : s.bytes_recv + c.bytes_recv;
    s.time_s += static_cast<double>(c.time_ns) * 1e-9;
    s.time_max_rank_s = std::max(s.time_max_rank_s, static_cast<double>(c.time_ns) * 1e-9);
  }
  std::stable_sort(sums.begin(), sums.end(),
                   [](const CollectiveSummary& a, const CollectiveSummary& b) { return a.time_s > b.time_s; });
  if (sums.size() > top) sums.resize(top);
  r->top_collectives = std::move(sums);
}

}  // namespace

void collective_sent_received(unsigned call, uint64_t bytes, int32_t comm_size, bool is_root, bool inter,
                              int64_t* sent, int64_t* received) {
  const int64_t b = static_cast<int64_t>(bytes);
  const int64_t n = comm_size > 0 ? comm_size : 1;
  int64_t s = 0, r = 0;
  switch (rules()[call < kNumCalls ? call : 0]) {
    case Rule::None: break;
    case Rule::RootSends: (is_root ? s : r) = b; break;
    case Rule::RootReceives: (is_root ? r : s) = b; break;
    case Rule::Reduce: s = b, r = is_root ? b : 0; break;
    case Rule::Both: s = r = b; break;
    case Rule::Allgather: s = b / n, r = b; break;
    case Rule::ReduceScatterBlock: s = b, r = b / n; break;
    case Rule::SentOnly: s = b, r = kBytesUnknown; break;
    case Rule::ReceivedOnly: s = kBytesUnknown, r = b; break;
    case Rule::FileRead: r = b; break;
    case Rule::FileWrite: s = b; break;
  }
  // Intercommunicator collectives move data between the groups by rules of their own.
  if (inter && (s || r)) s = r = kBytesUnknown;
  *sent = s;
  *received = r;
}

CommunicationReport analyse_communication(const Timeline& tl, const OpTable& ops, uint32_t top, MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  std::vector<uint8_t> mine = serialize(local_rows(tl, ops));

  CommunicationReport rep;
  rep.ranks = np;
  uint64_t extra[4] = {0, 0, 0, 0}, total = 0;
  bool ok = true;
  const bool gathered = gather_bytes_to_root(
      mine, comm,
      [&](int r, const uint8_t* data, size_t size) {
        // Rank 0 alone: nothing may escape from here while the others wait in the next round.
        try {
          ok = ok && parse_rows(data, size, r, &rep, extra);
        } catch (const std::exception&) {
          ok = false;
        }
        rep.gathered_bytes += size;
      },
      kRoundBytes, kGatherLimit, &total);
  if (me != 0) return rep;
  rep.present = true;
  if (!gathered)
    rep.notes.push_back("communication matrix not gathered: " + std::to_string(total >> 20) +
                        " MiB of rows exceed the 4 GiB rank 0 would need");
  if (!ok) rep.notes.push_back("some ranks' communication rows could not be decoded: the matrix is incomplete");
  if (extra[0])
    rep.notes.push_back(std::to_string(extra[0]) + " point-to-point messages (" + std::to_string(extra[1]) +
                        " bytes) on intercommunicators to another job (MPI_Comm_spawn, connect/accept) are not in the matrix");
  if (extra[2])
    rep.notes.push_back(std::to_string(extra[2]) + " point-to-point messages (" + std::to_string(extra[3]) +
                        " bytes) to ranks of communicators whose group could not be reconstructed are not in the matrix");
  try {
    summarise(&rep, top);
  } catch (const std::exception&) {
    rep.pairs.clear();
    rep.collectives.clear();
    rep.histogram.clear();
    rep.notes.push_back("communication matrix dropped: rank 0 ran out of memory summarising it");
  }
  return rep;
}

}  // namespace cpath
