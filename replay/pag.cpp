#include "pag.h"

#include "send_modes.h"

namespace cpath {

RankPag::RankPag(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, int world_rank)
    : tl_(tl), ops_(ops), partners_(partners), me_(world_rank) {
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const CallKind k = call_info(tl.ev[i].e.call).kind;
    if (k == CallKind::Init && init_ == kNoEvent) init_ = i;
    if (k == CallKind::Finalize) finalize_ = i;
  }
}

int64_t wait_start(const Timeline& tl, const OpTable& ops, uint32_t op, uint32_t c, int64_t s, uint32_t* poll,
                   uint32_t* last, int64_t loop_gap) {
  if (poll) *poll = kNoEvent;
  if (last) *last = kNoEvent;
  const int64_t own = tl.ev[c].begin;
  if (op >= ops.ops.size()) return own;
  const uint32_t p = first_poll_by(ops, tl, op, tl.slot(c));
  if (p == kNoEvent || p >= c) return own;
  const int64_t pb = tl.ev[p].begin;
  if (pb >= s) return own;
  // The loop is the run of polls that ends at c: going back from c, the polls of the same
  // request or key while the thread computed at most kPollLoopGapNs between one and the next
  // (or c), and after the thread's last call that completed other requests. A longer stretch
  // of the thread's own work ends it: earlier polls (a termination check after the previous
  // exchange, a single test before long work) did not start this wait. So does a completion:
  // the call that returned another message (an MPI_Testany, an MPI_Test of another request,
  // the MPI_Recv after an MPI_Iprobe, a blocking call that waited for a partner of its own)
  // ended a wait of its own, and the thread went on to what it got. q: the loop's last poll
  // that began before the partner. Until q is found, the computation since an event only
  // grows, so once it exceeds the lateness from p no q can meet the condition below.
  const int64_t late = s - pb;
  uint32_t first = c, q = kNoEvent;
  for (uint32_t x = tl.prev[c]; x != kNoEvent && x >= p; x = tl.prev[x]) {
    if (tl.work_between(x, first) > loop_gap || ops.done_begin[x] < ops.done_begin[x + 1]) break;
    if (q == kNoEvent && tl.work_between(x, c) > late) return own;
    if (x == p || polls_like(ops, tl, op, p, x)) {
      first = x;
      if (q == kNoEvent && tl.ev[x].begin < s) q = x;
    }
  }
  if (q == kNoEvent) return own;  // no poll of the loop began before the partner
  const int64_t fb = tl.ev[first].begin;
  if (tl.work_between(q, c) > s - fb) return own;
  if (poll) *poll = first;
  if (last) *last = q;
  return fb;
}


PagTarget RankPag::end_edge(uint32_t i, uint32_t* op_out, int64_t* wait_from, uint32_t* poll, uint32_t* last) const {
  const TimelineEvent& te = tl_.ev[i];
  // Rule 2: the latest partner candidate that began before this call ended. Ties: the lowest
  // rank, then the lowest event.
  Partner best, firm;  // the latest candidate, and the latest that is no progress candidate
  uint32_t best_op = kNoEvent, firm_op = kNoEvent;
  bool best_progress = false;  // a non-blocking collective's progress candidate (rule 4)
  auto later = [](const Partner& p, const Partner& than) {
    return !than.valid() || p.begin > than.begin ||
           (p.begin == than.begin && (p.rank < than.rank || (p.rank == than.rank && p.event < than.event)));
  };
  auto consider = [&](const Partner& p, uint32_t op, bool progress) {
    if (!p.valid() || p.begin >= te.end) return;
    if (later(p, best)) {
      best = p;
      best_op = op;
      best_progress = progress;
    }
    if (!progress && later(p, firm)) {
      firm = p;
      firm_op = op;
    }
  };
  if (i == init_) consider(partners_.init, kNoEvent, false);
  for (uint32_t k = ops_.done_begin[i]; k < ops_.done_begin[i + 1]; ++k) {
    const uint32_t op = ops_.done_ops[k];
    if (op < partners_.of_op.size()) consider(partners_.of_op[op], op, false);
    PartnerTable::for_each_in(partners_.extra, op, [&](const Partner& p) { consider(p, op, false); });
    PartnerTable::for_each_in(partners_.progress, op, [&](const Partner& p) { consider(p, op, true); });
  }
  const PagTarget own{me_, i, te.begin};
  if (poll) *poll = kNoEvent;
  if (last) *last = kNoEvent;
  if (!best.valid()) return own;
  // The own begin wins ties; with polling, the wait start stands in for it (rule 5). A partner
  // that began after this call's begin wins whatever the wait start (w <= begin), so the walk
  // and the forward pass (which ask for no wait_from) skip rule 5 then; the wait states may
  // not: the waiting began at the first poll, and the lost time runs from there (the
  // reference's and docs/report.md's measure).
  uint32_t p = kNoEvent, q = kNoEvent;
  auto wins = [&](const Partner& x, uint32_t x_op, int64_t w) {
    if (op_out) *op_out = x_op;
    if (wait_from) *wait_from = w;
    if (poll) *poll = p;
    if (last) *last = q;
    return PagTarget{x.rank, x.event, x.begin};
  };
  const bool partner_after_begin = best.begin > te.begin;
  const int64_t w =
      partner_after_begin && !wait_from
          ? te.begin
          : wait_start(tl_, ops_, best_op, i, best.begin, &p, &q, best_progress ? kCollectiveProgressGapNs : kPollLoopGapNs);
  if (best.begin > w) return wins(best, best_op, w);
  // A progress candidate is the weaker evidence (rule 4) and only a tight loop waits for it.
  // A loop that did not may still have waited for the posts before it: an instance completes
  // only once every member posted. Then the latest other candidate, with rule 5's loop as for
  // any partner (a 200 us-per-poll MPI_Request_get_status loop waited 60 ms for a member's
  // post, and that member, descheduled 140 us before its MPI_Waitall, made the Waitall the
  // progress candidate: the loop's 60 ms went on the path as its own work).
  if (best_progress && firm.valid()) {
    p = q = kNoEvent;
    const int64_t wf = wait_start(tl_, ops_, firm_op, i, firm.begin, &p, &q, kPollLoopGapNs);
    if (firm.begin > wf) return wins(firm, firm_op, wf);
  }
  return own;
}

}  // namespace cpath
