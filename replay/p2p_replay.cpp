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

}  // namespace

MatchVerdict judge_match(const SendRecord& s, uint64_t sender_host, int sender_rank, OpKind receiver_kind,
                         uint64_t receiver_host, const EagerLimits& limits) {
  MatchVerdict v;
  const uint64_t limit = eager_limit_between(limits, sender_host == receiver_host);
  v.sender_waits = send_waits_for_receiver(s.send_mode(), s.bytes, limit);
  v.sender_held = send_may_be_held(s.send_mode(), s.bytes, inline_limit_between(limits, sender_host == receiver_host), limit);
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
  const EagerLimits limits = eager_limits_of(*tl.trace);
  const uint64_t my_host = host_id(*tl.trace);
  std::vector<uint64_t> hosts(static_cast<size_t>(np), 0);
  tool_allgather(&my_host, 1, MPI_UINT64_T, hosts.data(), 1, MPI_UINT64_T, comm);
  // Round 1: sends -> receivers, laid out by receiver (counting sort) in one array sized once.
  std::vector<long long> count(static_cast<size_t>(np), 0);
  for (const NumberedOp& s : numbered.sends)
    if (s.peer_world >= 0 && s.peer_world < np) ++count[static_cast<size_t>(s.peer_world)];
  std::vector<size_t> from;
  std::vector<SendRecord> incoming;
  {
    // Each receiver's sends in key order (it gets one sorted run per sender, and merges them),
    // as indices: the records themselves are made a round at a time as they are sent.
    std::vector<size_t> first(static_cast<size_t>(np) + 1, 0);
    for (int p = 0; p < np; ++p) first[static_cast<size_t>(p) + 1] = first[static_cast<size_t>(p)] + static_cast<size_t>(count[static_cast<size_t>(p)]);
    std::vector<uint32_t> to(first.back());
    {
      std::vector<size_t> pos(first.begin(), first.end() - 1);
      for (uint32_t si : order_by_channel(numbered.sends, numbered.channels.size())) {
        const NumberedOp& s = numbered.sends[si];
        if (s.peer_world >= 0 && s.peer_world < np) to[pos[static_cast<size_t>(s.peer_world)]++] = si;
      }
    }
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
    incoming = exchange_records_made<SendRecord>(count, make, comm, &from);
  }
  auto sender_of = [&](uint32_t i) {
    return static_cast<int32_t>(std::upper_bound(from.begin(), from.end(), static_cast<size_t>(i)) - from.begin() - 1);
  };
  // Sends and receives meet by sorting both on (channel, sequence number) and merging: no
  // per-send hash node (the table was ~120 bytes and a cache miss per message). The sends are
  // sorted as indices into the array they arrived in: each sender's run came in key order
  // (checked: a run that did not is sorted here), and the runs are merged pairwise.
  std::vector<uint32_t> sorted(incoming.size());
  for (uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
  {
    auto before = [&](uint32_t x, uint32_t y) {
      const int c = compare_rec(incoming[x], incoming[y].key(), incoming[y].seq);
      return c != 0 ? c < 0 : x < y;
    };
    sort_runs(sorted.begin(), from, before);
  }
  // Of sends with one key only the first to arrive can match (the others stay unanswered).
  sorted.erase(std::unique(sorted.begin(), sorted.end(),
                           [&](uint32_t x, uint32_t y) {
                             return compare_rec(incoming[x], incoming[y].key(), incoming[y].seq) == 0;
                           }),
               sorted.end());
  // Receives in key order, program order among equal keys: a peek sees the message the
  // receive after it takes; once taken, nothing else on the key matches.
  const std::vector<uint32_t> by_key = order_by_channel(numbered.recvs, numbered.channels.size());
  // Pair with receives; peeks see the message without consuming it.
  std::vector<ByteWriter> reply(static_cast<size_t>(np));
  size_t at = 0;
  bool taken = false;  // the send at `at` was consumed by a receive
  for (uint32_t ri : by_key) {
    const NumberedOp& rcv = numbered.recvs[ri];
    while (at < sorted.size() && compare_rec(incoming[sorted[at]], numbered.key(rcv), rcv.seq) < 0) {
      ++at;
      taken = false;
    }
    if (at == sorted.size() || taken || compare_rec(incoming[sorted[at]], numbered.key(rcv), rcv.seq) != 0) {
      if (!rcv.peek) ++stats->recvs_unmatched;
      continue;
    }
    const int32_t rank = sender_of(sorted[at]);
    const SendRecord& si = incoming[sorted[at]];
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
      continue;
    }
    if (v.completion_unknown) ++((si.flags & kSendFreed) ? stats->rendezvous_freed : stats->rendezvous_never_completed);
    ++stats->p2p_matched;
    // Matched by MPI_Mprobe: a rendezvous or synchronous send waits for the MPI_Mrecv (or
    // MPI_Imrecv and its completing call), which gives the buffer; the probe saw only the
    // envelope (rule 3; an 8-byte MPI_Ssend waited 100 ms for the MPI_Mrecv, both MPIs).
    // A buffered send above the eager limit leaves the attached buffer only once this receive
    // is posted: the sender's MPI_Buffer_detach waits for it (its flush op, rule 3), with the
    // candidates of a rendezvous send; the send itself stays local.
    const uint64_t limit = eager_limit_between(limits, hosts[static_cast<size_t>(rank)] == my_host);
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
    taken = true;
  }
  std::vector<SendRecord>().swap(incoming);
  std::vector<uint32_t>().swap(sorted);
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
