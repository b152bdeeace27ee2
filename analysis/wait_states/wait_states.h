// Wait states, their root causes and the POP efficiency factors (issue 9, docs/report.md
// "Wait states"). Per rank and pure: find_wait_states (this rank's instances, from the PAG's
// end edges), delay_costs (what this rank's compute made others wait). Collective:
// analyse_wait_states, which sums them over ranks into the report.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "critical_path_walk.h"
#include "ops.h"
#include "pag.h"
#include "patterns.h"
#include "timeline.h"

namespace cpath {

struct Report;
class SiteNames;

// A call that waited for a partner on another rank: the PAG edge from its end to the
// partner's begin. Lost time = partner_begin - wait_from (> 0).
struct WaitInstance {
  uint32_t event = 0;          // the waiting call (this rank's timeline)
  uint32_t op = kNoEvent;      // the op whose partner it waited for (kNoEvent: MPI_Init)
  int32_t partner_rank = -1;
  uint32_t partner_event = 0;  // on partner_rank
  int64_t wait_from = 0;       // its begin, or the wait start of rule 5
  int64_t partner_begin = 0;
  WaitPattern pattern = WaitPattern::LateSender;
  bool on_path = false;        // the critical path leaves this call's end for the partner
  uint16_t send_call = 0;      // point-to-point waits: the send's call (send_mode_split.cpp)
  int64_t lost() const { return partner_begin - wait_from; }
};

// Every wait of this rank, in timeline order. A call completing several ops (Waitall,
// Waitany, Waitsome, several non-blocking collectives) waits once, for the latest partner:
// the request that finished last carries the whole wait.
std::vector<WaitInstance> find_wait_states(const RankPag& pag, const Timeline& tl, const OpTable& ops,
                                           const PartnerTable& partners, const WalkResult& walk, int me);
// The calls whose end the critical path passes on this rank (its MPI segments), sorted.
std::vector<uint32_t> path_mpi_calls(const WalkResult& walk);

// Calls f(op) for every op of a kind `fits(OpKind)` accepts that the waiting call w completed
// and that waited for w's partner (a Waitall may hold several); f returns true to stop.
template <class Fits, class F>
void for_each_op_waited(const OpTable& ops, const PartnerTable& partners, const WaitInstance& w, Fits fits, F f) {
  for (uint32_t k = ops.done_begin[w.event]; k < ops.done_begin[w.event + 1]; ++k) {
    const uint32_t o = ops.done_ops[k];
    const Op& op = ops.ops[o];
    // Not of_op alone: a held send peeked but never received has only its probe (extra).
    if (!fits(op.kind) || op.cancelled) continue;
    bool mine = false;
    partners.for_each(o, [&](const Partner& p) { mine |= p.rank == w.partner_rank && p.event == w.partner_event; });
    if (mine && f(o)) return;
  }
}

// The receives among them (Wrong Order, Misarrangement).
template <class F>
void for_each_recv_waited(const OpTable& ops, const PartnerTable& partners, const WaitInstance& w, F f) {
  for_each_op_waited(ops, partners, w, [](OpKind k) { return k == OpKind::Recv; }, f);
}

// Where a receive was completed, in its thread's order: (thread slot << 32) | completing call,
// a receive never completed after every call of its posting thread. "A receive completed
// later" is one of the same thread: another thread's receive, later in the rank's merged
// timeline, is no message this receive could have taken first.
inline uint64_t completion_place(const Timeline& tl, const Op& op) {
  const uint32_t at = op.done != kNoEvent ? op.done : op.post;
  const uint64_t slot = at < tl.ev.size() ? tl.slot(at) : 0;
  return slot << 32 | op.done;
}
inline bool same_thread(uint64_t place_a, uint64_t place_b) { return (place_a >> 32) == (place_b >> 32); }

// Late Sender instances whose receive could have taken a message sent earlier, which a later
// receive of the same thread takes, become Late Sender / Wrong Order (wrong_order.cpp).
void mark_wrong_order(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, std::vector<WaitInstance>* inst);
// Late Sender (/ Wrong Order) instances whose later-received message came from the same sender
// by a local MPI_Send or MPI_Bsend become Misarrangement (misarrangement.cpp). After
// mark_wrong_order.
void mark_misarrangement(const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                         std::vector<WaitInstance>* inst);
// Fills WaitInstance::send_call of the Late Sender family (the matched send's call) and of Late
// Receiver (the waiting send's call) (send_mode_split.cpp).
void attach_send_calls(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, std::vector<WaitInstance>* inst);

// Time inside a call after its partners came (no partner is waited for: no root cause).
// Barrier / NxN Completion (completion.cpp): partner = the member that left first (its end in
// wait_from when later than the call's begin), partner_begin = the call's end.
void find_completions(const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                      const std::vector<uint32_t>& path_calls, std::vector<WaitInstance>* out);
// Close send-receive pairs (close_send_recv.cpp): event = the pair's second call, partner =
// its first call on this rank, wait_from .. partner_begin = the pair's time.
// 100 us: an MPI_Send and the MPI_Recv on the next line were measured 44 us apart (first calls
// at their sites, 4 ranks on 2 cores).
constexpr int64_t kCloseSendRecvNs = 100000;
void find_close_send_recv(const Timeline& tl, const OpTable& ops, const std::vector<uint32_t>& path_calls, int me,
                          std::vector<WaitInstance>* out);

// Root causes on the delaying rank. A wait of `lost` ns that ended at the begin of this
// rank's call `event` was caused, for its last min(lost, c) ns, by the compute interval of
// length c before `event` (short-term); of the rest, the time this rank's thread spent waiting
// itself, in earlier calls that waited for their partners, is long-term (propagated from those
// waits). What is left (time in calls that did not wait, compute before the thread's last
// wait) is neither: it is no wait passed on, and no work of this interval.
struct DelayCost {
  uint32_t event = 0;           // the call the waiting rank waited for
  int64_t short_ns = 0, long_ns = 0;
  uint32_t instances = 0;
  uint32_t start = kNoEvent;    // CauseWalker: where the interval that delayed it began
  int64_t interval = 0;         // its compute (INT64_MAX: nothing before the call)
};
// 16 bytes: one per wait another rank had for this one, all held at once.
struct CausedWait {
  int64_t lost;
  uint32_t event;  // on the delaying rank
  int32_t waiting_rank;
};
// The order delay_costs and cause_rows read them in (among one event's, any order).
inline bool caused_before(const CausedWait& a, const CausedWait& b) { return a.event < b.event; }
int64_t compute_before_call(const Timeline& tl, uint32_t event);

// Where this rank met other ranks, as the root causes need it: the calls that waited for a
// partner (the W instances: their PAG end edge leads to a partner, docs/report.md "What a wait
// is"), the collective calls other ranks waited for (the group left them together), and when
// each thread was waiting, from a wait's start to its call's end (a wait starting before the
// thread's previous wait ended starts at that end, so no time counts twice).
class ThreadWaits {
 public:
  // From find_wait_states' instances (the C ones, no waits for a partner, are skipped) and the
  // waits other ranks had for this one.
  ThreadWaits(const Timeline& tl, const OpTable& ops, const std::vector<WaitInstance>& inst, const std::vector<CausedWait>& caused);
  // The thread met other ranks at `event`: the root-cause interval ends there.
  bool met(uint32_t event) const { return std::binary_search(met_.begin(), met_.end(), event); }
  // How long thread `slot` was waiting within [a, b].
  int64_t waiting_within(uint32_t slot, int64_t a, int64_t b) const;
  // The latest call of thread `slot` in (after, before) that `rank` waited for, or kNoEvent: a
  // point-to-point call met the peer that waited for it, and that peer only.
  uint32_t met_by(int32_t rank, uint32_t slot, uint32_t after, uint32_t before) const;

 private:
  struct Period {
    int64_t from, to;
    int64_t before;  // the thread's waiting time in its earlier periods
  };
  int64_t waiting_until(const std::vector<Period>& v, int64_t t) const;
  std::vector<uint32_t> met_;                  // sorted
  // (waiting rank, slot of the call waited for, the call), sorted and unique
  struct WaitedBy {
    int32_t rank;
    uint32_t slot, event;
    bool operator<(const WaitedBy& o) const {
      return rank != o.rank ? rank < o.rank : slot != o.slot ? slot < o.slot : event < o.event;
    }
    bool operator==(const WaitedBy& o) const { return rank == o.rank && slot == o.slot && event == o.event; }
  };
  std::vector<WaitedBy> waited_by_;
  std::vector<std::vector<Period>> by_slot_;   // per thread slot, in time order, disjoint
};

// The interval of work that delayed a call its partners waited for: from the end of the
// thread's last call before it where it met other ranks (ThreadWaits::met), across the calls
// where it did not, whatever their kind, on the same thread: a rank that computes, posts an
// MPI_Iallreduce (or makes an eager MPI_Send, an MPI_Test, an MPI_Iprobe that returned at once)
// and computes on was late by both stretches, not by the one after the call alone; a master's
// MPI_Isend that one worker waited for met that worker only, not the next (for_each_delay_cost
// ends each waiting rank's interval at the last call that rank waited for). Nothing before the
// call (MPI_Init): unbounded, the rank's start-up caused the whole wait. Asked for a rank's
// events in increasing order, it walks each run of such calls once (a master's 10^4 MPI_Isend
// posts, each some worker's partner, are not walked again for each).
class CauseWalker {
 public:
  CauseWalker(const Timeline& tl, const ThreadWaits& waits) : tl_(tl), waits_(waits) {}
  // The interval's compute, INT64_MAX when nothing comes before `event`; *start: the call it
  // begins after (kNoEvent: none).
  int64_t interval(uint32_t event, uint32_t* start);

 private:
  struct Memo {
    uint32_t from = kNoEvent, start = kNoEvent;  // walked from `from` back to `start`
    int64_t compute = 0;                         // the compute between them
  };
  const Timeline& tl_;
  const ThreadWaits& waits_;
  std::vector<Memo> memo_;  // per thread slot, the latest walk
};
// One entry per distinct event, in event order, from `caused` sorted by caused_before:
// f(DelayCost) for each (no table: the root causes read them once). `waits`: this rank's own.
void for_each_delay_cost(const Timeline& tl, const ThreadWaits& waits, const std::vector<CausedWait>& caused,
                         const std::function<void(const DelayCost&)>& f);
// The same, collected.
std::vector<DelayCost> delay_costs(const Timeline& tl, const ThreadWaits& waits, const std::vector<CausedWait>& caused);

// This rank's useful computation for the POP model: time outside MPI on the thread that called
// MPI_Init, between the end of MPI_Init and the begin of MPI_Finalize.
int64_t useful_compute_ns(const Timeline& tl, const RankPag& pag);

// Collective over comm: everything above, summed into rep (rank 0). `my_path_compute_ns`:
// this rank's compute on the critical path, start-up excluded. `waits_file`, if not
// empty, gets this rank's instances and delay costs (option path=1; the differential tests
// compare it with cpath-ref --waits).
void analyse_wait_states(const RankPag& pag, const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                         const WalkResult& walk,
                         SiteNames& names, double my_path_compute_ns, MPI_Comm comm, const std::string& waits_file,
                         Report* rep);

}  // namespace cpath
