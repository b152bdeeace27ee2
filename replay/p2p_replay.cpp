#include "p2p_replay.h"

#include <unordered_map>

#include "byte_io.h"
#include "sparse_exchange.h"

namespace cpath {

namespace {

struct SeqKey {
  ChannelKey ch;
  uint32_t seq;
  bool operator==(const SeqKey& o) const { return ch == o.ch && seq == o.seq; }
};
struct SeqKeyHash {
  size_t operator()(const SeqKey& k) const { return ChannelKeyHash()(k.ch) ^ (static_cast<size_t>(k.seq) * 0x9e3779b97f4a7c15ull); }
};

}  // namespace

void replay_point_to_point(const Timeline& tl, const OpTable& ops, const NumberedOps& numbered, MPI_Comm comm,
                           std::vector<Partner>* partners, ReplayStats* stats,
                           std::vector<Partner>* matched_sends) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  // Round 1: sends -> receivers.
  std::vector<ByteWriter> out(static_cast<size_t>(np));
  for (const NumberedOp& s : numbered.sends) {
    if (s.peer_world >= np) continue;
    const Op& o = ops.ops[s.op];
    ByteWriter& w = out[static_cast<size_t>(s.peer_world)];
    w.put<uint64_t>(s.ch.comm);
    w.put<int32_t>(s.ch.src);
    w.put<int32_t>(s.ch.dst);
    w.put<int32_t>(s.ch.tag);
    w.put<uint32_t>(s.seq);
    w.put<uint32_t>(s.op);
    w.put<uint32_t>(o.post);
    w.put<int64_t>(tl.ev[o.post].begin);
  }
  std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) bufs[static_cast<size_t>(p)].swap(out[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> in = exchange_bytes(bufs, comm);

  struct IncomingSend {
    int32_t rank;
    uint32_t op, event;
    int64_t begin;
  };
  std::unordered_map<SeqKey, IncomingSend, SeqKeyHash> incoming;
  for (int p = 0; p < np; ++p) {
    ByteReader r(in[static_cast<size_t>(p)].data(), in[static_cast<size_t>(p)].size());
    while (r.left() > 0) {
      SeqKey k;
      IncomingSend s;
      s.rank = p;
      if (!r.get(k.ch.comm) || !r.get(k.ch.src) || !r.get(k.ch.dst) || !r.get(k.ch.tag) || !r.get(k.seq) ||
          !r.get(s.op) || !r.get(s.event) || !r.get(s.begin))
        break;
      incoming.emplace(k, s);
    }
  }
  // Pair with receives; peeks see the message without consuming it.
  std::vector<ByteWriter> reply(static_cast<size_t>(np));
  for (const NumberedOp& rcv : numbered.recvs) {
    auto it = incoming.find(SeqKey{rcv.ch, rcv.seq});
    if (it == incoming.end()) {
      if (!rcv.peek) ++stats->recvs_unmatched;
      continue;
    }
    const IncomingSend& s = it->second;
    (*partners)[rcv.op] = Partner{s.rank, s.event, s.begin};
    if (matched_sends) (*matched_sends)[rcv.op] = Partner{s.rank, s.event, s.begin};
    if (rcv.peek) continue;
    ++stats->p2p_matched;
    const Op& o = ops.ops[rcv.op];
    ByteWriter& w = reply[static_cast<size_t>(s.rank)];
    w.put<uint32_t>(s.op);
    w.put<uint32_t>(o.post);
    w.put<int64_t>(tl.ev[o.post].begin);
    incoming.erase(it);
  }
  stats->sends_unmatched += 0;  // counted by the senders below
  for (int p = 0; p < np; ++p) bufs[static_cast<size_t>(p)].swap(reply[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> back = exchange_bytes(bufs, comm);
  std::vector<bool> answered(ops.ops.size(), false);
  for (int p = 0; p < np; ++p) {
    ByteReader r(back[static_cast<size_t>(p)].data(), back[static_cast<size_t>(p)].size());
    while (r.left() > 0) {
      uint32_t op, event;
      int64_t begin;
      if (!r.get(op) || !r.get(event) || !r.get(begin) || op >= ops.ops.size()) break;
      (*partners)[op] = Partner{p, event, begin};
      answered[op] = true;
    }
  }
  for (const NumberedOp& s : numbered.sends)
    if (!answered[s.op]) ++stats->sends_unmatched;
}

}  // namespace cpath
