// The reference's reading of the wait-state patterns docs/report.md defines beyond "the end
// edge leads to another rank" (the twins of analysis/wait_states/wrong_order.cpp,
// completion.cpp, close_send_recv.cpp), written from the definitions, not from that code:
// - Late Sender / Wrong Order: a Late Sender whose receive waited for a send that began after
//   the send of a receive the same thread completed in a later call (one it never completed,
//   posted by that thread, counts as later).
// - Misarrangement (MPI_Send / MPI_Bsend): a Late Sender (wrong order or not) whose receive
//   waited for a send from rank S that began after the send of a message from S which a
//   receive the rank completed later took, that earlier send being a blocking MPI_Send or
//   MPI_Bsend (by its call's mode) that did not wait for its receiver; MPI_Send when both fit.
// - Barrier / NxN Completion: in an N-to-N collective every member recorded and in which every
//   member moved data (or none carries a payload size: a barrier), completed by a
//   call that completes nothing else, the time from the first member's end (or the call's own
//   begin, if later) to the call's end.
// - Close Send-Recv: a blocking send and a blocking receive (either order) with the same peer on
//   one communicator, the second call beginning less than 100 us after the first ended.
// Lines (after the rank, as wait_states.cpp): C rank call pattern partner_rank partner_call
// from to on_path.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "ref.h"

namespace cpref {

namespace {

constexpr int64_t kCloseNs = 100000;

int64_t begin_of(const Job& job, const CallRef& c) { return job.ranks[static_cast<size_t>(c.rank)].calls[c.call].b; }

// Not rule 10's synchronisation messages (requests.cpp sync_tag): no receive the program wrote.
bool usable_recv(const Op& o) { return o.kind == OpKind::Recv && !o.cancelled && o.send.valid() && o.tag > -1048576; }

// The one op a blocking send or receive call made, or null.
const Op* blocking_p2p(const Rank& r, uint32_t c) {
  if (r.done_at[c].size() != 1) return nullptr;
  const Op& o = r.ops[r.done_at[c][0]];
  if ((o.kind != OpKind::Send && o.kind != OpKind::Recv) || o.post != c || o.peer < 0 || o.cancelled) return nullptr;
  if (o.tag <= -1048576) return nullptr;  // rule 10's synchronisation messages
  return &o;
}

// Calls f(receive op, a receive completed by a later call of the rank whose send began first) for every
// receive `call` completed that waited for `partner`; f returns true to stop.
template <class F>
bool for_each_overtaken(const Job& job, int rank, uint32_t call, const CallRef& partner, F f) {
  const Rank& r = job.ranks[static_cast<size_t>(rank)];
  for (uint32_t op : r.done_at[call]) {
    const Op& o = r.ops[op];
    if (!usable_recv(o)) continue;
    bool waited = false;
    for (const CallRef& c : o.cands) waited |= c.rank == partner.rank && c.call == partner.call;
    if (!waited) continue;
    const int64_t mine = begin_of(job, o.send);
    // Only a receive of the same thread: another thread's is no message this one could take first.
    for (const Op& later : r.ops)
      if (usable_recv(later) && (later.done == kNone || later.done > call) &&
          r.calls[later.done == kNone ? later.post : later.done].thread == r.calls[call].thread &&
          begin_of(job, later.send) < mine && f(o, later))
        return true;
  }
  return false;
}

}  // namespace

bool late_sender_wrong_order(const Job& job, int rank, uint32_t call, const CallRef& partner) {
  return for_each_overtaken(job, rank, call, partner, [](const Op&, const Op&) { return true; });
}

int misarrangement(const Job& job, int rank, uint32_t call, const CallRef& partner) {
  bool standard = false, buffered = false;
  for_each_overtaken(job, rank, call, partner, [&](const Op& o, const Op& later) {
    if (later.send.rank != o.send.rank || !later.send_local) return false;
    const cpath::SendMode m = cpath::call_info(later.send_call).mode;
    standard |= m == cpath::SendMode::Standard;
    buffered |= m == cpath::SendMode::Buffered;
    return false;
  });
  return standard ? 1 : buffered ? 2 : 0;
}

void print_time_in_calls(const Job& job, const std::set<std::pair<int, uint32_t>>& on_path) {
  // (rank, posting call) -> collective op index, to find each member's completing call.
  std::map<std::pair<int, uint32_t>, uint32_t> coll;
  for (size_t rk = 0; rk < job.ranks.size(); ++rk)
    for (uint32_t i = 0; i < job.ranks[rk].ops.size(); ++i)
      if (job.ranks[rk].ops[i].kind == OpKind::Coll) coll[{static_cast<int>(rk), job.ranks[rk].ops[i].post}] = i;
  for (size_t rk = 0; rk < job.ranks.size(); ++rk) {
    const Rank& r = job.ranks[rk];
    const int me = static_cast<int>(rk);
    for (const Op& o : r.ops) {
      if (o.kind != OpKind::Coll || o.pattern != cpath::Pattern::All || o.done == kNone || r.done_at[o.done].size() != 1)
        continue;
      if (o.comm < 0 || static_cast<size_t>(o.comm) >= r.trace.comms.size() ||
          o.cands.size() + 1 != static_cast<size_t>(r.trace.comms[static_cast<size_t>(o.comm)].size))
        continue;
      // Only synchronising instances: none where a member moved no data (rule 4).
      bool sync = !o.no_data && !o.unsync;
      for (const CallRef& c : o.cands) {
        auto it = coll.find({c.rank, c.call});
        if (it == coll.end()) continue;
        const Op& other = job.ranks[static_cast<size_t>(c.rank)].ops[it->second];
        if (other.no_data || other.unsync) sync = false;
      }
      if (!sync) continue;
      // The member that left first (ties: the lower rank), this one included.
      int first_rank = me;
      uint32_t first_call = o.done;
      int64_t first_end = r.calls[o.done].e;
      for (const CallRef& c : o.cands) {
        auto it = coll.find({c.rank, c.call});
        if (it == coll.end()) continue;
        const Rank& q = job.ranks[static_cast<size_t>(c.rank)];
        const uint32_t d = q.ops[it->second].done;
        if (d == kNone) continue;
        if (q.calls[d].e < first_end || (q.calls[d].e == first_end && c.rank < first_rank)) {
          first_rank = c.rank;
          first_call = d;
          first_end = q.calls[d].e;
        }
      }
      const Call& k = r.calls[o.done];
      const int64_t from = std::max(first_end, k.b);
      if (k.e <= from) continue;
      const char* n = o.args != kNone ? r.calls[o.args].info().name : "";
      const bool barrier = !std::strcmp(n, "MPI_Barrier") || !std::strcmp(n, "MPI_Ibarrier");
      std::printf("C %d %u %s %d %u %" PRId64 " %" PRId64 " %d\n", me, o.done, barrier ? "Barrier_Completion" : "NxN_Completion",
                  first_rank, first_call, from, k.e, on_path.count({me, o.done}) ? 1 : 0);
    }
    for (uint32_t c = 0; c < r.calls.size(); ++c) {
      const uint32_t p = r.calls[c].prev;  // the same thread's: rule 1's link from another thread pairs nothing
      if (p == kNone) continue;
      const Op* b = blocking_p2p(r, c);
      const Op* a = b ? blocking_p2p(r, p) : nullptr;
      if (!a || a->kind == b->kind || a->comm != b->comm || a->peer != b->peer) continue;
      if (r.calls[c].b - r.calls[p].e >= kCloseNs) continue;
      std::printf("C %d %u Close_Send-Recv %d %u %" PRId64 " %" PRId64 " %d\n", me, c, me, p, r.calls[p].b, r.calls[c].e,
                  on_path.count({me, c}) ? 1 : 0);
    }
  }
}

}  // namespace cpref
