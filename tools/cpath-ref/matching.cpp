// Point-to-point matching and its partner candidates (docs/pag-rules.md rule 3).
// MPI matches in non-overtaking order per channel (communicator, source, destination, tag),
// wildcard receives with the source and tag their status gave: the k-th send of a channel
// (in the sender's posting order) is taken by the k-th receive (in the receiver's posting
// order), and a probe sees the message the next receive of the channel takes.
// Send modes: a standard send of at most the eager limit (recorded in the trace meta data, for
// ranks on one host or between hosts) is eager; above it standard and synchronous sends are
// rendezvous; a ready send is sent as a standard one. Buffered sends never wait for the
// receiver, nor do eager standard sends up to the inline limit; above it an eager standard
// send may be held until the receiver's MPI takes the message (Open MPI's ob1 above 256
// bytes), so it gets the same candidates as a rendezvous send, though its receive does not
// wait for it. The receive of a non-blocking rendezvous or synchronous send may wait for the
// sender's completing call, that of a buffered send above the eager limit for the sender's
// next call.
#include <algorithm>
#include <map>
#include <tuple>

#include "ref.h"

namespace cpref {

namespace {

struct Side {
  int rank;
  uint32_t op;
};

// -1 when the trace does not say (traces written before the limit was recorded).
// docs/pag-rules.md rule 3: a thread that computed less than this between two calls stayed in
// MPI, progressing, all along.
constexpr int64_t kProgressGapNs = 20000;

int64_t eager_limit(const Job& job, int src, int dst) {
  const Rank& s = job.ranks[static_cast<size_t>(src)];
  const Rank& d = job.ranks[static_cast<size_t>(dst)];
  return s.host == d.host ? s.eager_intra : s.eager_inter;
}

// -1 when the trace does not say: then no eager send is held.
int64_t inline_limit(const Job& job, int src, int dst) {
  const Rank& s = job.ranks[static_cast<size_t>(src)];
  const Rank& d = job.ranks[static_cast<size_t>(dst)];
  return s.host == d.host ? s.inline_intra : s.inline_inter;
}

}  // namespace

void match_point_to_point(Job* job) {
  using Channel = std::tuple<int32_t, int, int, int32_t>;  // communicator id, source, destination (world), tag
  std::map<Channel, std::vector<Side>> sends, recvs;
  std::map<Channel, std::vector<std::pair<Side, size_t>>> peeks;  // probe, receives posted before it
  const int np = static_cast<int>(job->ranks.size());
  for (int rk = 0; rk < np; ++rk) {
    Rank& r = job->ranks[static_cast<size_t>(rk)];
    for (uint32_t i = 0; i < r.ops.size(); ++i) {
      const Op& o = r.ops[i];
      if (o.kind != OpKind::Send && o.kind != OpKind::Recv && o.kind != OpKind::Peek) continue;
      const int32_t id = op_comm(job, r, o);
      if (id < 0) continue;
      const int32_t other = peer_world_of(*job, rk, o.comm, o.peer);
      if (other < 0 || o.cancelled) {  // MPI_PROC_NULL, cancelled
        ++job->counts.p2p_skipped;
        continue;
      }
      if (o.kind == OpKind::Send) {
        sends[Channel{id, rk, other, o.tag}].push_back({rk, i});
      } else {
        const Channel ch{id, other, rk, o.tag};
        if (o.kind == OpKind::Recv) recvs[ch].push_back({rk, i});
        else peeks[ch].push_back({{rk, i}, recvs[ch].size()});
      }
    }
  }
  auto op_of = [&](const Side& s) -> Op& { return job->ranks[static_cast<size_t>(s.rank)].ops[s.op]; };
  // Threads (rule 6): two ops of a channel whose posting calls overlap in time came from two
  // threads, and MPI queued them in an order the trace does not hold. A group is every op
  // whose posting call began before the latest end among the group's earlier ops; it races
  // when it holds ops of two threads or more (MPI_Startall posts one thread's ops in one
  // call). Every op of a racing group is counted; a racing group of receives is reordered:
  // repeatedly, of each thread's earliest remaining receive, the one whose completing call
  // ended first (ties: the earlier post) takes the group's next place.
  auto racing_groups = [&](std::vector<Side>& list, bool reorder) {
    size_t g = 0;
    while (g < list.size()) {
      const Rank& r = job->ranks[static_cast<size_t>(list[g].rank)];
      if (op_of(list[g]).post == kNone) {  // not placed in time: races with nothing
        ++g;
        continue;
      }
      int64_t latest = r.calls[op_of(list[g]).post].e;
      size_t h = g + 1;
      while (h < list.size() && op_of(list[h]).post != kNone && r.calls[op_of(list[h]).post].b < latest) {
        latest = std::max(latest, r.calls[op_of(list[h]).post].e);
        ++h;
      }
      // Each thread's ops of the group, in posting order.
      std::map<uint32_t, std::vector<Side>> by_thread;
      for (size_t k = g; k < h; ++k) by_thread[r.calls[op_of(list[k]).post].thread].push_back(list[k]);
      if (by_thread.size() >= 2) {
        job->counts.thread_channel_order += h - g;
        if (reorder) {
          auto ended = [&](const Side& s) {
            const uint32_t d = op_of(s).done;
            return d == kNone ? INT64_MAX : r.calls[d].e;
          };
          std::map<uint32_t, size_t> next;  // per thread: its first receive not yet placed
          for (size_t place = g; place < h; ++place) {
            const Side* pick = nullptr;
            uint32_t pick_thread = 0;
            for (auto& [th, ops] : by_thread) {
              const size_t at = next[th];
              if (at == ops.size()) continue;
              const Side& c = ops[at];
              // Ties: the earlier post, which is the lower op index (ops are in posting order).
              if (!pick || ended(c) < ended(*pick) || (ended(c) == ended(*pick) && c.op < pick->op)) {
                pick = &c;
                pick_thread = th;
              }
            }
            list[place] = *pick;
            ++next[pick_thread];
          }
        }
      }
      g = h;
    }
  };
  for (auto& [ch, ss] : sends) racing_groups(ss, false);
  for (auto& [ch, rs] : recvs) racing_groups(rs, true);
  // The candidates a receive or probe gets from its send: the send's posting call, and for a
  // non-blocking rendezvous or synchronous send the call that completed it (the transfer
  // progresses only when the sender is inside MPI).
  // A later call the sender entered without computing since the post (less than 20 us on
  // its thread) adds nothing: the sender was in MPI, progressing, all along.
  // (Summed here along the thread's calls: compute_before is filled only after matching.)
  auto progressed = [&](int rank, uint32_t post, uint32_t later) {
    const Rank& sr = job->ranks[static_cast<size_t>(rank)];
    if (sr.calls[later].thread != sr.calls[post].thread) return false;
    int64_t gap = 0;
    for (uint32_t x = later; x != post && x != kNone && sr.calls[x].prev != kNone; x = sr.calls[x].prev)
      gap += std::max<int64_t>(0, sr.calls[x].b - sr.calls[sr.calls[x].prev].e);
    return gap < kProgressGapNs;
  };
  auto from_send = [&](const Side& snd, Op& rcv_or_peek, bool rendezvous) {
    const Op& s = op_of(snd);
    rcv_or_peek.send = {snd.rank, s.post};
    rcv_or_peek.cands.push_back({snd.rank, s.post});
    if (rendezvous && s.done != kNone && s.done != s.post && !progressed(snd.rank, s.post, s.done))
      rcv_or_peek.cands.push_back({snd.rank, s.done});
  };
  // How a send of this mode and size goes (rule 3): {rendezvous, waits for its receiver, held}.
  auto judge = [](const Op& s, int64_t limit, int64_t inline_max) {
    const bool large = limit >= 0 && s.bytes > static_cast<uint64_t>(limit);
    bool rendezvous = false, waits = false, held = false;
    switch (s.mode) {
      case cpath::SendMode::Synchronous:
        // Whatever its size: an MPI may advance the synchronous protocol only from the
        // sender's side (MPICH 4.0 did), so the receive may wait for the completing call.
        rendezvous = true;
        waits = true;
        break;
      case cpath::SendMode::Standard:
      case cpath::SendMode::Ready:
        // A ready send goes out as a standard one (Open MPI held a 1000-byte MPI_Rsend for
        // its receiver's progress, and sent 4041 bytes and up by rendezvous).
        rendezvous = large;
        // HOOK: a trace without the eager limit (written before it was recorded) says nothing
        // about eagerness: its standard sends wait for the receiver, as they were analysed then
        // (its ready sends never did).
        waits = large || (limit < 0 && s.mode == cpath::SendMode::Standard);
        held = !waits && inline_max >= 0 && s.bytes > static_cast<uint64_t>(inline_max);
        break;
      default:  // buffered: never waits for the receiver
        break;
    }
    // Rule 10: the message of MPI_Win_complete (requests.cpp sync_tag, odd offset) may be held
    // until the target's MPI_Win_wait (MPICH 4.0 held it there).
    if (s.tag <= -1048576 && (-1048576LL - s.tag) % 2) held = !waits;
    return std::make_tuple(rendezvous, waits, held);
  };
  // A partitioned message goes by rendezvous at any size: MPICH 4.0 sends its data only once
  // the receiver's clear-to-send (from its MPI_Start) reached the sender's progress.
  auto limit_of = [&](const Side& snd, int64_t channel_limit) -> int64_t {
    const Op& s = op_of(snd);
    const bool partitioned = s.args != kNone && (job->ranks[static_cast<size_t>(snd.rank)].calls[s.args].info().flags &
                                                 cpath::kCallPartitioned);
    return partitioned ? 0 : channel_limit;
  };
  for (auto& [ch, ss] : sends) {
    auto rit = recvs.find(ch);
    const size_t nr = rit == recvs.end() ? 0 : rit->second.size();
    const int64_t channel_limit = eager_limit(*job, std::get<1>(ch), std::get<2>(ch));
    const int64_t inline_max = inline_limit(*job, std::get<1>(ch), std::get<2>(ch));
    for (size_t k = 0; k < ss.size(); ++k) {
      if (k >= nr) {
        ++job->counts.sends_unmatched;
        continue;
      }
      const Side snd = ss[k], rcv = rit->second[k];
      Op& s = op_of(snd);
      Op& rv = op_of(rcv);
      // A persistent send may be held at any size where eager sends are held at all (Open
      // MPI's MPI_Start does not send inline).
      const bool persistent = s.args != kNone && (job->ranks[static_cast<size_t>(snd.rank)].calls[s.args].info().flags &
                                                  cpath::kCallPersistent);
      const int64_t limit = limit_of(snd, channel_limit);
      const auto [rendezvous, waits, held] =
          judge(s, limit, persistent && inline_max >= 0 && limit >= 0 && inline_max < limit ? 0 : inline_max);
      const bool large = limit >= 0 && s.bytes > static_cast<uint64_t>(limit);
      from_send(snd, rv, rendezvous);
      // A buffered message above the eager limit leaves the attached buffer in the sender's
      // next call that progresses MPI (not MPI_Pcontrol): its receive may wait for that call.
      if (s.mode == cpath::SendMode::Buffered && large && s.post != kNone) {
        const Rank& sr = job->ranks[static_cast<size_t>(snd.rank)];
        const uint32_t th = sr.calls[s.post].thread;
        for (size_t c = size_t{s.post} + 1; c < sr.calls.size(); ++c) {
          if (sr.calls[c].thread != th) continue;
          if (sr.calls[c].info().kind == cpath::CallKind::Pcontrol) continue;
          if (!progressed(snd.rank, s.post, static_cast<uint32_t>(c))) rv.cands.push_back({snd.rank, static_cast<uint32_t>(c)});
          break;
        }
      }
      // Rule 9: a receive of a rendezvous send nobody completed (left active, or freed while
      // active) misses its candidate "the sender's completing call"; any other request left
      // active changes nothing, since no call waits for it.
      if (rendezvous && s.done == kNone) ++(s.freed ? job->counts.freed_active : job->counts.never_completed);
      const Rank& sr = job->ranks[static_cast<size_t>(snd.rank)];
      if (s.args != kNone) rv.send_call = sr.calls[s.args].ev->call;
      rv.send_local = !waits && s.done == s.post;
      s.held = held;
      // A message matched by MPI_Mprobe moves, above the eager limit, only once MPI_Mrecv (or
      // MPI_Imrecv and the call completing it) gives the buffer.
      uint32_t rpost = rv.post, rdone = rv.done;
      if (rendezvous && (large || s.mode == cpath::SendMode::Synchronous) && rv.mrecv != kNone) {
        rpost = rv.mrecv;
        rdone = rv.mrecv_op == kNone ? rv.mrecv : job->ranks[static_cast<size_t>(rcv.rank)].ops[rv.mrecv_op].done;
      }
      // A buffered message above the eager limit leaves the buffer once its receive is posted:
      // the MPI_Buffer_detach after it waits as a rendezvous send would.
      if (s.mode == cpath::SendMode::Buffered && large && s.flush != kNone) {
        const Rank& rr = job->ranks[static_cast<size_t>(rcv.rank)];
        uint32_t fpost = rv.post, fdone = rv.done;
        if (rv.mrecv != kNone) {
          fpost = rv.mrecv;
          fdone = rv.mrecv_op == kNone ? rv.mrecv : rr.ops[rv.mrecv_op].done;
        }
        Op& f = job->ranks[static_cast<size_t>(snd.rank)].ops[s.flush];
        f.cands.push_back({rcv.rank, fpost});
        if (fdone != kNone && fdone != fpost && !progressed(rcv.rank, fpost, fdone)) f.cands.push_back({rcv.rank, fdone});
      }
      if (waits || held) s.cands.push_back({rcv.rank, rpost});
      // ... and for the receiver's progress: the call completing a non-blocking receive.
      if ((waits || held) && rdone != kNone && rdone != rpost && !progressed(rcv.rank, rpost, rdone))
        s.cands.push_back({rcv.rank, rdone});
    }
    auto pit = peeks.find(ch);
    if (pit != peeks.end())
      for (auto& [who, k] : pit->second)
        if (k < ss.size()) {
          Op& s = op_of(ss[k]);
          // A probe sees the envelope, which travels at once: only the posting call.
          from_send(ss[k], op_of(who), false);
          // A held send is released by the receiver's progress, and the probe that found it
          // is such progress (Open MPI held a 1000-byte MPI_Send until its receiver's
          // MPI_Probe): a candidate of the send.
          // Not a probe the receiver came to from another MPI call without computing (a
          // polling loop progresses all along).
          const uint32_t probe = op_of(who).post;
          const uint32_t before = probe == kNone ? kNone : job->ranks[static_cast<size_t>(who.rank)].calls[probe].prev;
          const bool polling = probe == kNone || (before != kNone && progressed(who.rank, before, probe));
          if (!polling && std::get<2>(judge(s, limit_of(ss[k], channel_limit), inline_max))) {
            s.held = true;
            s.cands.push_back({who.rank, probe});
          }
          if (s.args != kNone) op_of(who).send_call = job->ranks[static_cast<size_t>(ss[k].rank)].calls[s.args].ev->call;
        }
  }
  for (auto& [ch, rs] : recvs) {
    auto sit = sends.find(ch);
    const size_t ns = sit == sends.end() ? 0 : sit->second.size();
    if (rs.size() > ns) job->counts.recvs_unmatched += rs.size() - ns;
  }
}

}  // namespace cpref
