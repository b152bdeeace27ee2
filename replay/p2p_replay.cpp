#include "p2p_replay.h"

#include <algorithm>

#include "byte_io.h"
#include "send_modes.h"
#include "sorted_runs.h"
#include "sparse_exchange.h"

namespace cpath {

namespace {

int compare_seq(const ChannelKey& a, uint32_t sa, const ChannelKey& b, uint32_t sb) {
  if (const int c = compare_keys(a, b)) return c;
  if (sa != sb) return sa < sb ? -1 : 1;
  return 0;
}

int compare_rec(const SendRecord& a, const ChannelKey& b, uint32_t sb) { return compare_seq(a.key(), a.seq, b, sb); }

// Indices of v (the numbered sends or receives) grouped by peer, each peer's in key order
// (order_by_channel, program order among equal keys): peer p's are at (*first)[p] ..
// (*first)[p + 1], and those whose peer is outside the job last, from (*first)[np].
std::vector<uint32_t> by_peer_in_key_order(const NumberedOps& numbered, const std::vector<NumberedOp>& v, int np,
                                           std::vector<size_t>* first) {
  const std::vector<uint32_t> by_key = order_by_channel(v, numbered.channels.size());
  const size_t outside = static_cast<size_t>(np);
  auto peer = [&](size_t i) {
    const int32_t w = v[by_key[i]].peer_world;
    return w >= 0 && w < np ? static_cast<size_t>(w) : outside;
  };
  std::vector<uint32_t> order = bucket_order(by_key.size(), outside + 1, peer, first);
  for (uint32_t& i : order) i = by_key[i];
  return order;
}

}  // namespace

MatchVerdict judge_match(const SendRecord& s, uint64_t sender_host, int sender_rank, OpKind receiver_kind,
                         uint64_t receiver_host, const EagerLimits& limits) {
  MatchVerdict v;
  const uint64_t limit = eager_limit_of_send(s.call, eager_limit_between(limits, sender_host == receiver_host));
  v.sender_waits = send_waits_for_receiver(s.send_mode(), s.bytes, limit);
  // An MPI that holds eager sends above an inline limit may hold a persistent one of any size:
  // Open MPI 4.1's MPI_Start does not take ob1's inline path (an 8-byte MPI_Send_init request
  // waited 59-61 ms for its computing receiver in 4 runs of 15; MPI_Isend of 8 bytes never did).
  uint64_t inline_limit = inline_limit_between(limits, sender_host == receiver_host);
  if ((call_info(s.call).flags & kCallPersistent) && inline_limit < limit) inline_limit = 0;
  v.sender_held = send_may_be_held(s.send_mode(), s.bytes, inline_limit, limit);
  // Rule 10: MPICH 4.0 held MPI_Win_complete until the target entered MPI_Win_wait (95 ms for a
  // target computing after its post); Open MPI returned at once, and then the target's call
  // began after the complete ended, which is never followed.
  if (is_pscw_tag(s.tag) && pscw_tag_is_complete(s.tag)) v.sender_held = !v.sender_waits;
  // A probe sees the envelope, which travels at once; a receive may need the sender inside
  // MPI: rendezvous data or a synchronous message in the call that completes a non-blocking
  // send, a large buffered message in the sender's next call (done_event, chosen by the
  // sender for each mode).
  if (receiver_kind != OpKind::Recv || (s.flags & kSendProgressed)) return v;
  const bool completing = !(s.flags & kSendBlocking) && receive_may_wait_for_sender(s.send_mode(), s.bytes, limit);
  if (!completing && !receive_waits_for_senders_next_call(s.send_mode(), s.bytes, limit)) return v;
  if (s.done_event != kNoEvent) v.extra = Partner{sender_rank, s.done_event, s.done_begin};
  // Never completed or freed while active: that edge is missing. A buffered send without a
  // next call (its thread's last) was sent by MPI_Finalize, which no receive waited for.
  else if (completing) v.completion_unknown = true;
  return v;
}

void replay_point_to_point(const Timeline& tl, const OpTable& ops, const NumberedOps& numbered, MPI_Comm comm,
                           PartnerTable* partners, ReplayStats* stats, std::vector<SenderOp>* senders) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  // A generalized request's partner is the program's MPI_Grequest_complete, on this rank.
  for (const auto& [op, ev] : ops.grequest_completes)
    if (op < partners->of_op.size()) partners->of_op[op] = Partner{me, ev, tl.ev[ev].begin};
  const EagerLimits limits = eager_limits_of(*tl.trace);
  const uint64_t my_host = host_id(*tl.trace);
  std::vector<uint64_t> hosts(static_cast<size_t>(np), 0);
  tool_allgather(&my_host, 1, MPI_UINT64_T, hosts.data(), 1, MPI_UINT64_T, comm);
  // Round 1: sends -> receivers, matched by the receivers as they come; round 2: the replies.
  // Receives by sender, each sender's in key order, program order among equal keys (a peek
  // sees the message the receive after it takes; once taken, nothing else on the key matches).
  // A receive's channel names its sender, and every sender's run comes in key order: each run
  // is merged with that sender's receives as it arrives, a round at a time, and no received
  // send is kept (they were a seventh of the analysis's peak).
  std::vector<size_t> rfirst;
  std::vector<uint32_t> rby = by_peer_in_key_order(numbered, numbered.recvs, np, &rfirst);
  for (size_t k = rfirst[static_cast<size_t>(np)]; k < rby.size(); ++k)
    if (!numbered.recvs[rby[k]].peek) ++stats->recvs_unmatched;  // no sender in the job
  // Pair with receives; peeks see the message without consuming it.
  std::vector<ByteWriter> reply(static_cast<size_t>(np));
  auto match = [&](const SendRecord& si, int32_t rank, const NumberedOp& rcv) {
    const Op& o = ops.ops[rcv.op];
    partners->of_op[rcv.op] = Partner{rank, si.post_event, si.post_begin};
    const MatchVerdict v = judge_match(si, hosts[static_cast<size_t>(rank)], rank, o.kind, my_host, limits);
    if (v.extra.valid()) partners->extra.emplace_back(rcv.op, v.extra);
    if (senders) (*senders)[rcv.op] = SenderOp{rank, si.op};
    if (rcv.op < partners->matched_send.size())
      partners->matched_send[rcv.op] = {si.call, (si.flags & kSendBlocking) && !v.sender_waits};
    if (rcv.peek) {
      // A held send is released by the receiver's progress, and a probe that found it is
      // such progress: Open MPI's 1000-byte MPI_Send waited 40 ms for the receiver's
      // MPI_Probe (6 of 6 tries), not for its MPI_Recv 30 ms later. A candidate of the
      // send, not its partner (flag 8). Unless the receiver came to the probe from another
      // MPI call without computing (a polling loop): it was progressing all along, and its
      // probe beginning while the send ran says nothing about a hold.
      const uint32_t before = tl.prev[o.post];
      const bool came_from_mpi = before != kNoEvent && stayed_in_mpi(tl, before, o.post, kProgressGapNs);
      if (v.sender_held && !v.sender_waits && !came_from_mpi) {
        ByteWriter& w = reply[static_cast<size_t>(rank)];
        w.put<uint32_t>(si.op);
        w.put<uint32_t>(o.post);
        w.put<int64_t>(tl.ev[o.post].begin);
        w.put<uint8_t>(4 | 8);
      }
      return;
    }
    if (v.completion_unknown) ++((si.flags & kSendFreed) ? stats->rendezvous_freed : stats->rendezvous_never_completed);
    ++stats->p2p_matched;
    // Matched by MPI_Mprobe: a rendezvous or synchronous send waits for the MPI_Mrecv (or
    // MPI_Imrecv and its completing call), which gives the buffer; the probe saw only the
    // envelope (rule 3; an 8-byte MPI_Ssend waited 100 ms for the MPI_Mrecv, both MPIs).
    // A buffered send above the eager limit leaves the attached buffer only once this receive
    // is posted: the sender's MPI_Buffer_detach waits for it (its flush op, rule 3), with the
    // candidates of a rendezvous send; the send itself stays local.
    const uint64_t limit = eager_limit_of_send(si.call, eager_limit_between(limits, hosts[static_cast<size_t>(rank)] == my_host));
    const bool flushed = receive_waits_for_senders_next_call(si.send_mode(), si.bytes, limit) && !is_pscw_tag(si.tag);
    uint32_t post = o.post, done = o.done;
    if (const OpTable::MatchedRecv m = ops.mrecv(rcv.op);
        m.call != kNoEvent && (si.send_mode() == SendMode::Synchronous || flushed ||
                               send_is_rendezvous(si.send_mode(), si.bytes, limit))) {
      post = m.call;
      done = m.request_op != kNoEvent ? ops.ops[m.request_op].done : m.call;
    }
    ByteWriter& w = reply[static_cast<size_t>(rank)];
    w.put<uint32_t>(si.op);
    w.put<uint32_t>(post);
    w.put<int64_t>(tl.ev[post].begin);
    // A send that waits for its receiver (or may be held for it) waits for the receiver's
    // progress too: the call that completes a non-blocking receive, unless the receiver went
    // there without computing (rule 3; Open MPI held a blocking send for a receive posted
    // before it until the receiver entered MPI_Wait 20 ms later).
    const bool waits = v.sender_waits || v.sender_held;
    const bool done_later = (waits || flushed) && done != kNoEvent && done != post && !stayed_in_mpi(tl, post, done, kProgressGapNs);
    const bool held_only = v.sender_held && !v.sender_waits;
    w.put<uint8_t>(static_cast<uint8_t>((waits ? 1 : 0) | (done_later ? 2 : 0) | (held_only ? 4 : 0) | (flushed ? 16 : 0)));
    if (done_later) {
      w.put<uint32_t>(done);
      w.put<int64_t>(tl.ev[done].begin);
    }
  };
  // Per sender: the next of its receives, and the last record seen (of sends with one key only
  // the first to arrive can match; a run out of key order, which a sender never makes, matches
  // nothing more: its sends and receives are counted unmatched).
  struct Cursor {
    size_t next = 0;
    bool seen = false, taken = false, broken = false;
    ChannelKey key;
    uint32_t seq = 0;
  };
  std::vector<Cursor> cur(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) cur[static_cast<size_t>(p)].next = rfirst[static_cast<size_t>(p)];
  auto take = [&](int p, size_t, const SendRecord* recs, size_t n) {
    Cursor& c = cur[static_cast<size_t>(p)];
    const size_t end = rfirst[static_cast<size_t>(p) + 1];
    for (size_t k = 0; k < n && !c.broken; ++k) {
      const SendRecord& si = recs[k];
      if (c.seen) {
        const int order = compare_rec(si, c.key, c.seq);
        if (order == 0) continue;
        if (order < 0) {
          c.broken = true;
          break;
        }
      }
      c.seen = true;
      c.key = si.key();
      c.seq = si.seq;
      c.taken = false;
      for (; c.next < end; ++c.next) {
        const NumberedOp& rcv = numbered.recvs[rby[c.next]];
        const int order = compare_rec(si, numbered.key(rcv), rcv.seq);
        if (order > 0) {
          if (!rcv.peek) ++stats->recvs_unmatched;  // no send for it
          continue;
        }
        if (order < 0) break;  // the next record's, or none's
        if (c.taken) {
          if (!rcv.peek) ++stats->recvs_unmatched;
          continue;
        }
        match(si, static_cast<int32_t>(p), rcv);
        c.taken = !rcv.peek;
      }
    }
  };
  {
    // Each receiver's sends in key order (the run it merges with its receives from this rank),
    // as indices: the records themselves are made a round at a time as they are sent.
    std::vector<size_t> first;
    const std::vector<uint32_t> to = by_peer_in_key_order(numbered, numbered.sends, np, &first);
    std::vector<long long> count(static_cast<size_t>(np));
    for (size_t p = 0; p < count.size(); ++p) count[p] = static_cast<long long>(first[p + 1] - first[p]);
    auto make = [&](int p, size_t i, SendRecord* rec) {
      const NumberedOp& s = numbered.sends[to[first[static_cast<size_t>(p)] + i]];
      const Op& o = ops.ops[s.op];
      SendRecord& r = *rec;
      r = SendRecord();
      const ChannelKey& ch = numbered.key(s);
      r.comm = ch.comm;
      r.src = ch.src;
      r.dst = ch.dst;
      r.tag = ch.tag;
      r.seq = s.seq;
      r.op = s.op;
      r.post_event = o.post;
      r.post_begin = tl.ev[o.post].begin;
      const bool done_later = o.done != kNoEvent && o.done != o.post;
      r.done_event = done_later ? o.done : kNoEvent;
      r.done_begin = done_later ? tl.ev[o.done].begin : 0;
      if (o.mode == SendMode::Buffered) {
        r.done_event = next_call_of_thread(tl, o.post);
        r.done_begin = r.done_event != kNoEvent ? tl.ev[r.done_event].begin : 0;
      }
      r.bytes = op_bytes(tl, o);
      r.mode = static_cast<uint8_t>(o.mode);
      r.call = o.args < tl.ev.size() ? tl.ev[o.args].e.call : 0;
      r.flags = static_cast<uint8_t>((o.done == o.post ? kSendBlocking : 0) | (o.freed_active ? kSendFreed : 0));
      if (r.done_event != kNoEvent && stayed_in_mpi(tl, o.post, r.done_event, kProgressGapNs)) r.flags |= kSendProgressed;
    };
    exchange_records_streamed<SendRecord>(count, make, take, comm);
  }
  for (int p = 0; p < np; ++p)
    for (size_t k = cur[static_cast<size_t>(p)].next; k < rfirst[static_cast<size_t>(p) + 1]; ++k)
      if (!numbered.recvs[rby[k]].peek) ++stats->recvs_unmatched;
  std::vector<uint32_t>().swap(rby);
  std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np));
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
      // A send that does not wait for its receiver has no partner: its end is its own. A
      // buffered one's candidates go to the detach that flushed it, if any (16).
      const uint32_t flush = (waits & 16) ? ops.flush_of(op) : kNoEvent;
      if (flush != kNoEvent) partners->of_op[flush] = Partner{p, event, begin};
      if (waits & 1) partners->of_op[op] = Partner{p, event, begin};
      if (waits & 8) partners->extra.emplace_back(op, Partner{p, event, begin});
      if (waits & 4) {
        if (partners->held.size() < ops.ops.size()) partners->held.resize(ops.ops.size(), false);
        partners->held[op] = true;
      }
      if (waits & 2) {
        uint32_t done;
        int64_t done_begin;
        if (!r.get(done) || !r.get(done_begin)) break;
        if (waits & 16) {
          if (flush != kNoEvent) partners->extra.emplace_back(flush, Partner{p, done, done_begin});
        } else {
          partners->extra.emplace_back(op, Partner{p, done, done_begin});
        }
      }
      if (!(waits & 8)) answered[op] = true;  // a probe's candidate is no match
    }
  }
  for (const NumberedOp& s : numbered.sends)
    if (!answered[s.op]) ++stats->sends_unmatched;
  partners->sort_extra();
}

}  // namespace cpath
