#include "p2p_replay.h"

#include <algorithm>

#include "byte_io.h"
#include "send_modes.h"
#include "sparse_exchange.h"

namespace cpath {

namespace {

int compare_seq(const ChannelKey& a, uint32_t sa, const ChannelKey& b, uint32_t sb) {
  if (a.comm != b.comm) return a.comm < b.comm ? -1 : 1;
  if (a.src != b.src) return a.src < b.src ? -1 : 1;
  if (a.dst != b.dst) return a.dst < b.dst ? -1 : 1;
  if (a.tag != b.tag) return a.tag < b.tag ? -1 : 1;
  if (sa != sb) return sa < sb ? -1 : 1;
  return 0;
}

void put_send(ByteWriter& w, const SendInfo& s) {
  w.put<uint64_t>(s.ch.comm);
  w.put<int32_t>(s.ch.src);
  w.put<int32_t>(s.ch.dst);
  w.put<int32_t>(s.ch.tag);
  w.put<uint32_t>(s.seq);
  w.put<uint32_t>(s.op);
  w.put<uint32_t>(s.post_event);
  w.put<int64_t>(s.post_begin);
  w.put<uint32_t>(s.done_event);
  w.put<int64_t>(s.done_begin);
  w.put<uint64_t>(s.bytes);
  w.put<uint64_t>(s.host);
  w.put<uint8_t>(static_cast<uint8_t>(s.mode));
  w.put<uint16_t>(s.call);
  w.put<uint8_t>(static_cast<uint8_t>((s.blocking ? 1 : 0) | (s.freed ? 2 : 0)));
}

bool get_send(ByteReader& r, SendInfo* s) {
  uint8_t mode = 0, blocking = 0;
  const bool ok = r.get(s->ch.comm) && r.get(s->ch.src) && r.get(s->ch.dst) && r.get(s->ch.tag) && r.get(s->seq) &&
                  r.get(s->op) && r.get(s->post_event) && r.get(s->post_begin) && r.get(s->done_event) &&
                  r.get(s->done_begin) && r.get(s->bytes) && r.get(s->host) && r.get(mode) && r.get(s->call) && r.get(blocking);
  s->mode = static_cast<SendMode>(mode);
  s->blocking = (blocking & 1) != 0;
  s->freed = (blocking & 2) != 0;
  return ok;
}

}  // namespace

MatchVerdict judge_match(const SendInfo& s, int sender_rank, OpKind receiver_kind, uint64_t receiver_host,
                         const EagerLimits& limits) {
  MatchVerdict v;
  const uint64_t limit = eager_limit_between(limits, s.host == receiver_host);
  v.sender_waits = send_waits_for_receiver(s.mode, s.bytes, limit);
  // A probe sees the envelope, which travels at once; a receive of rendezvous data needs the
  // sender inside MPI, i.e. in the call that completes a non-blocking send.
  if (receiver_kind == OpKind::Recv && !s.blocking && send_is_rendezvous(s.mode, s.bytes, limit)) {
    if (s.done_event != kNoEvent) v.extra = Partner{sender_rank, s.done_event, s.done_begin};
    else v.completion_unknown = true;
  }
  return v;
}

void replay_point_to_point(const Timeline& tl, const OpTable& ops, const NumberedOps& numbered, MPI_Comm comm,
                           PartnerTable* partners, ReplayStats* stats, std::vector<Partner>* matched_sends,
                           std::vector<SenderOp>* senders) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  const EagerLimits limits = eager_limits_of(*tl.trace);
  const uint64_t my_host = host_id(*tl.trace);
  // Round 1: sends -> receivers. Every record has the same size: each buffer is sized once
  // (growing by doubling would leave up to half of it unused at the phase's peak).
  size_t record = 0;
  {
    ByteWriter one;
    put_send(one, SendInfo());
    record = one.bytes().size();
  }
  std::vector<ByteWriter> out(static_cast<size_t>(np));
  {
    std::vector<size_t> count(static_cast<size_t>(np), 0);
    for (const NumberedOp& s : numbered.sends)
      if (s.peer_world >= 0 && s.peer_world < np) ++count[static_cast<size_t>(s.peer_world)];
    for (int p = 0; p < np; ++p) out[static_cast<size_t>(p)].bytes().reserve(count[static_cast<size_t>(p)] * record);
  }
  for (const NumberedOp& s : numbered.sends) {
    if (s.peer_world >= np) continue;
    const Op& o = ops.ops[s.op];
    SendInfo si;
    si.ch = s.ch;
    si.seq = s.seq;
    si.op = s.op;
    si.post_event = o.post;
    si.post_begin = tl.ev[o.post].begin;
    if (o.done != kNoEvent && o.done != o.post) {
      si.done_event = o.done;
      si.done_begin = tl.ev[o.done].begin;
    }
    si.bytes = o.bytes;
    si.host = my_host;
    si.mode = o.mode;
    si.call = o.args < tl.ev.size() ? tl.ev[o.args].e.call : 0;
    si.blocking = o.done == o.post;
    si.freed = o.freed_active;
    put_send(out[static_cast<size_t>(s.peer_world)], si);
  }
  std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) bufs[static_cast<size_t>(p)].swap(out[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> in = exchange_bytes(bufs, comm);
  for (auto& b : bufs) std::vector<uint8_t>().swap(b);

  // Sends and receives meet by sorting both on (channel, sequence number) and merging: no
  // per-send hash node (the table was ~120 bytes and a cache miss per message).
  struct IncomingSend {
    int32_t rank;
    uint32_t arrival;  // among equal keys the first to arrive counts, as it always has
    SendInfo info;
  };
  std::vector<IncomingSend> incoming;
  {
    size_t bytes = 0;
    for (const auto& b : in) bytes += b.size();
    incoming.reserve(bytes / record);
  }
  for (int p = 0; p < np; ++p) {
    std::vector<uint8_t>& buf = in[static_cast<size_t>(p)];
    ByteReader r(buf.data(), buf.size());
    while (r.left() > 0) {
      IncomingSend s;
      s.rank = p;
      s.arrival = static_cast<uint32_t>(incoming.size());
      if (!get_send(r, &s.info)) break;
      incoming.push_back(s);
    }
    std::vector<uint8_t>().swap(buf);
  }
  std::sort(incoming.begin(), incoming.end(), [](const IncomingSend& x, const IncomingSend& y) {
    const int c = compare_seq(x.info.ch, x.info.seq, y.info.ch, y.info.seq);
    return c != 0 ? c < 0 : x.arrival < y.arrival;
  });
  // Of sends with one key only the first to arrive can match (the others stay unanswered).
  incoming.erase(std::unique(incoming.begin(), incoming.end(),
                             [](const IncomingSend& x, const IncomingSend& y) {
                               return compare_seq(x.info.ch, x.info.seq, y.info.ch, y.info.seq) == 0;
                             }),
                 incoming.end());
  // Receives in key order, program order among equal keys: a peek sees the message the
  // receive after it takes; once taken, nothing else on the key matches.
  std::vector<uint32_t> by_key(numbered.recvs.size());
  for (uint32_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t x, uint32_t y) {
    const NumberedOp& a = numbered.recvs[x];
    const NumberedOp& b = numbered.recvs[y];
    const int c = compare_seq(a.ch, a.seq, b.ch, b.seq);
    return c != 0 ? c < 0 : x < y;
  });
  // Pair with receives; peeks see the message without consuming it.
  std::vector<ByteWriter> reply(static_cast<size_t>(np));
  size_t at = 0;
  bool taken = false;  // the send at `at` was consumed by a receive
  for (uint32_t ri : by_key) {
    const NumberedOp& rcv = numbered.recvs[ri];
    while (at < incoming.size() && compare_seq(incoming[at].info.ch, incoming[at].info.seq, rcv.ch, rcv.seq) < 0) {
      ++at;
      taken = false;
    }
    if (at == incoming.size() || taken || compare_seq(incoming[at].info.ch, incoming[at].info.seq, rcv.ch, rcv.seq) != 0) {
      if (!rcv.peek) ++stats->recvs_unmatched;
      continue;
    }
    const IncomingSend& s = incoming[at];
    const Op& o = ops.ops[rcv.op];
    partners->of_op[rcv.op] = Partner{s.rank, s.info.post_event, s.info.post_begin};
    if (matched_sends) (*matched_sends)[rcv.op] = partners->of_op[rcv.op];
    const MatchVerdict v = judge_match(s.info, s.rank, o.kind, my_host, limits);
    if (v.extra.valid()) partners->extra.emplace_back(rcv.op, v.extra);
    if (senders) (*senders)[rcv.op] = SenderOp{s.rank, s.info.op};
    if (rcv.op < partners->matched_send.size())
      partners->matched_send[rcv.op] = {s.info.call, s.info.blocking && !v.sender_waits};
    if (rcv.peek) continue;
    if (v.completion_unknown) ++(s.info.freed ? stats->rendezvous_freed : stats->rendezvous_never_completed);
    ++stats->p2p_matched;
    ByteWriter& w = reply[static_cast<size_t>(s.rank)];
    w.put<uint32_t>(s.info.op);
    w.put<uint32_t>(o.post);
    w.put<int64_t>(tl.ev[o.post].begin);
    w.put<uint8_t>(v.sender_waits ? 1 : 0);
    taken = true;
  }
  std::vector<IncomingSend>().swap(incoming);
  for (int p = 0; p < np; ++p) bufs[static_cast<size_t>(p)].swap(reply[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> back = exchange_bytes(bufs, comm);
  std::vector<bool> answered(ops.ops.size(), false);
  for (int p = 0; p < np; ++p) {
    ByteReader r(back[static_cast<size_t>(p)].data(), back[static_cast<size_t>(p)].size());
    while (r.left() > 0) {
      uint32_t op, event;
      int64_t begin;
      uint8_t waits;
      if (!r.get(op) || !r.get(event) || !r.get(begin) || !r.get(waits) || op >= ops.ops.size()) break;
      // A send that does not wait for its receiver has no partner: its end is its own.
      if (waits) partners->of_op[op] = Partner{p, event, begin};
      answered[op] = true;
    }
  }
  for (const NumberedOp& s : numbered.sends)
    if (!answered[s.op]) ++stats->sends_unmatched;
  partners->sort_extra();
}

}  // namespace cpath
