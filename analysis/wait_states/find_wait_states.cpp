#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>

#include "sorted_runs.h"
#include "wait_states.h"

namespace cpath {

std::vector<uint32_t> path_mpi_calls(const WalkResult& walk) {
  std::vector<uint32_t> on_path;
  for (const Segment& s : walk.path)
    if (s.kind == SegmentKind::Mpi && !s.passed) on_path.push_back(s.event);
  // The walk emits its segments in one time order or the other: checked before sorting.
  if (std::is_sorted(on_path.rbegin(), on_path.rend())) std::reverse(on_path.begin(), on_path.end());
  else if (!std::is_sorted(on_path.begin(), on_path.end())) std::sort(on_path.begin(), on_path.end());
  return on_path;
}

std::vector<WaitInstance> find_wait_states(const RankPag& pag, const Timeline& tl, const OpTable& ops,
                                           const PartnerTable& partners, const WalkResult& walk, int me) {
  // Calls whose end the path leaves for a partner: the MPI segments of this rank.
  const std::vector<uint32_t> on_path = path_mpi_calls(walk);
  std::vector<WaitInstance> out;
  // A thread waits for one thing at a time: a wait that rule 5 starts at a poll made before the
  // thread's previous wait ended (one loop polling a probe key and requests in turn, each
  // completed by its own call) is counted from that end, so the loop is not counted twice.
  std::vector<int64_t> waited_until;  // per slot: the end of its last waiting call
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    if (!pag.is_init(i) && ops.done_begin[i] == ops.done_begin[i + 1]) continue;
    uint32_t op = kNoEvent;
    int64_t from = 0;
    const PagTarget t = pag.end_edge(i, &op, &from);
    // Its own begin, or a call of its own thread (a message to itself): nothing waited for.
    // Another thread of this rank is waited for like another rank.
    if (t.rank == me && tl.slot(t.event) == tl.slot(i)) continue;
    WaitInstance w;
    if (!classify_wait(ops, tl, op, partners.beyond_pattern_at(op), &w.pattern)) continue;
    // One call can wait for the same partner call through two ops (Sendrecv with Sendrecv,
    // rendezvous both ways): the pattern listed first in WaitPattern wins, whatever the ops' order.
    for (uint32_t k = ops.done_begin[i]; k < ops.done_begin[i + 1]; ++k) {
      const uint32_t o = ops.done_ops[k];
      partners.for_each(o, [&](const Partner& p) {
        WaitPattern q;
        if (p.rank == t.rank && p.event == t.event && classify_wait(ops, tl, o, partners.beyond_pattern_at(o), &q) && q < w.pattern) w.pattern = q;
      });
    }
    w.event = i;
    w.op = op;
    w.partner_rank = t.rank;
    w.partner_event = t.event;
    const uint32_t slot = tl.slot(i);
    if (slot >= waited_until.size()) waited_until.resize(slot + 1, INT64_MIN);
    w.wait_from = std::min(t.begin, std::max(from, waited_until[slot]));
    waited_until[slot] = tl.ev[i].end;
    w.partner_begin = t.begin;
    w.on_path = std::binary_search(on_path.begin(), on_path.end(), i);
    out.push_back(w);
  }
  return out;
}

int64_t compute_before_call(const Timeline& tl, uint32_t event) {
  const uint32_t p = tl.prev[event];
  return p == kNoEvent ? 0 : std::max<int64_t>(0, tl.ev[event].begin - tl.ev[p].end);
}

ThreadWaits::ThreadWaits(const Timeline& tl, const OpTable& ops, const std::vector<WaitInstance>& inst,
                         const std::vector<CausedWait>& caused) {
  std::vector<std::pair<uint32_t, int64_t>> w;  // (waiting call, its wait start)
  for (const WaitInstance& x : inst)
    if (waits_for_partner(x.pattern) && x.event < tl.ev.size()) w.emplace_back(x.event, x.wait_from);
  if (!std::is_sorted(w.begin(), w.end())) std::sort(w.begin(), w.end());  // instances come by event
  for (const auto& [e, wait_from] : w) {
    if (!met_.empty() && met_.back() == e) continue;
    met_.push_back(e);
    const TimelineEvent& x = tl.ev[e];
    const uint32_t slot = tl.slot(e);
    if (slot >= by_slot_.size()) by_slot_.resize(slot + 1);
    // Event order is each thread's call order: the slot's periods come in time order.
    std::vector<Period>& v = by_slot_[slot];
    const int64_t from = v.empty() ? wait_from : std::max(wait_from, v.back().to);
    if (from >= x.end) continue;
    v.push_back({from, x.end, v.empty() ? 0 : v.back().before + (v.back().to - v.back().from)});
  }
  const size_t met_partner = met_.size();
  // A collective the others waited for met the whole group: its waiting members left with this
  // rank. A point-to-point call waited for met one peer, which says nothing of the others (a
  // master's sends to its workers), so it is crossed like a call nobody waited for.
  for (const CausedWait& c : caused) {
    if (c.event >= tl.ev.size()) continue;
    // A non-blocking or persistent collective's post met nobody: its instance completes, and its
    // members leave together, in the calls that complete it (the loop below).
    const CallInfo& ci = call_info(tl.ev[c.event].e.call);
    bool collective = (ci.kind == CallKind::Collective || ci.kind == CallKind::CommNew) &&
                      !(ci.flags & (kCallNonBlocking | kCallPersistent));
    for (uint32_t i = ops.done_begin[c.event]; !collective && i < ops.done_begin[c.event + 1]; ++i)
      collective = ops.ops[ops.done_ops[i]].kind == OpKind::Collective;  // rule 4: its progress call
    if (collective) met_.push_back(c.event);
    waited_by_.push_back({c.waiting_rank, tl.slot(c.event), c.event});
  }
  // `caused` comes by event: bucketed by the waiting rank, each rank's entries are then in
  // (slot, event) order already unless its threads interleave (a sort of 3 % of the finalize's
  // instructions on halo_bench, one thread per rank).
  int32_t ranks = 0;
  for (const WaitedBy& x : waited_by_) ranks = std::max(ranks, x.rank + 1);
  sort_by_bucket(&waited_by_, static_cast<size_t>(ranks), [](const WaitedBy& x) { return static_cast<size_t>(x.rank); },
                 std::less<WaitedBy>());
  waited_by_.erase(std::unique(waited_by_.begin(), waited_by_.end()), waited_by_.end());
  // Two runs in event order: the partner waits, then the collectives others waited for
  // (`caused` comes by event from analyse_wait_states; checked, as a caller may not keep it).
  const auto second = met_.begin() + static_cast<std::ptrdiff_t>(met_partner);
  if (!std::is_sorted(second, met_.end())) std::sort(second, met_.end());
  std::inplace_merge(met_.begin(), met_.begin() + static_cast<std::ptrdiff_t>(met_partner), met_.end());
  met_.erase(std::unique(met_.begin(), met_.end()), met_.end());
}

int64_t ThreadWaits::waiting_until(const std::vector<Period>& v, int64_t t) const {
  // The last period that began before t: all earlier ones ended by then.
  auto it = std::upper_bound(v.begin(), v.end(), t, [](int64_t x, const Period& p) { return x < p.from; });
  if (it == v.begin()) return 0;
  --it;
  return it->before + (std::min(t, it->to) - it->from);
}

int64_t ThreadWaits::waiting_within(uint32_t slot, int64_t a, int64_t b) const {
  if (slot >= by_slot_.size() || b <= a) return 0;
  const std::vector<Period>& v = by_slot_[slot];
  return waiting_until(v, b) - waiting_until(v, a);
}

uint32_t ThreadWaits::met_by(int32_t rank, uint32_t slot, uint32_t after, uint32_t before) const {
  // The last entry below (rank, slot, before), if it is of (rank, slot) and after `after`.
  auto j = std::lower_bound(waited_by_.begin(), waited_by_.end(), WaitedBy{rank, slot, before});
  if (j == waited_by_.begin()) return kNoEvent;
  --j;
  if (j->rank != rank || j->slot != slot) return kNoEvent;
  return after != kNoEvent && j->event <= after ? kNoEvent : j->event;
}

int64_t CauseWalker::interval(uint32_t event, uint32_t* start) {
  const uint32_t p = tl_.prev[event];
  *start = p;
  if (p == kNoEvent) return INT64_MAX;
  const int64_t last = compute_before_call(tl_, event);
  const uint32_t slot = tl_.slot(event);
  if (tl_.slot(p) != slot) return last;  // a thread's first call: its creator's call before it
  if (slot >= memo_.size()) memo_.resize(slot + 1);
  Memo& m = memo_[slot];
  uint32_t y = p;
  int64_t acc = 0;
  for (;;) {
    if (y == m.from) {
      acc += m.compute;
      y = m.start;
      break;
    }
    // What the call did, not what its kind could do: a blocking call that returned at once
    // (an eager MPI_Send, MPI_Test, MPI_Iprobe) held the thread no more than a post does.
    const uint32_t q = tl_.prev[y];
    if (q == kNoEvent || tl_.slot(q) != slot || waits_.met(y)) break;
    acc += compute_before_call(tl_, y);
    y = q;
  }
  m = Memo{p, y, acc};
  *start = y;
  return last + acc;
}

void for_each_delay_cost(const Timeline& tl, const ThreadWaits& waits, const std::vector<CausedWait>& caused,
                         const std::function<void(const DelayCost&)>& f) {
  CauseWalker walker(tl, waits);
  for (size_t i = 0; i < caused.size();) {
    size_t j = i;
    while (j < caused.size() && caused[j].event == caused[i].event) ++j;
    const uint32_t ev = caused[i].event;
    if (ev >= tl.ev.size()) {
      i = j;
      continue;
    }
    DelayCost d{ev, 0, 0, 0};
    uint32_t start = kNoEvent;
    const int64_t whole = walker.interval(ev, &start);
    const TimelineEvent& x = tl.ev[ev];
    // The row names the widest of the waiting ranks' intervals (the one since the group met).
    bool named = false;
    for (size_t k = i; k < j; ++k) {
      const CausedWait& c = caused[k];
      if (c.lost <= 0) continue;
      // This waiting rank met the thread later, at a point-to-point call it waited for: its
      // interval starts there (a ping-pong's slow side never waits, its sends do not run back
      // to the start).
      uint32_t from = start;
      int64_t interval = whole;
      const uint32_t y = start == kNoEvent || whole == INT64_MAX ? kNoEvent : waits.met_by(c.waiting_rank, tl.slot(ev), start, ev);
      if (y != kNoEvent) {
        from = y;
        interval = tl.compute_between(y, ev);
      }
      if (!named || from < d.start) {
        d.start = from;
        d.interval = interval;
        named = true;
      }
      const int64_t s = std::min(c.lost, interval);
      d.short_ns += s;
      // Long-term only where this thread was itself held by a partner during the wait it caused:
      // otherwise the rest is its own doing (time in calls that did not wait, work before it
      // last met others), which no chain of waits passed on.
      if (s < c.lost) d.long_ns += std::min(c.lost - s, waits.waiting_within(tl.slot(ev), x.begin - c.lost, x.begin));
      ++d.instances;
    }
    if (named) f(d);
    i = j;
  }
}

std::vector<DelayCost> delay_costs(const Timeline& tl, const ThreadWaits& waits, const std::vector<CausedWait>& caused) {
  std::vector<DelayCost> out;
  for_each_delay_cost(tl, waits, caused, [&](const DelayCost& d) { out.push_back(d); });
  return out;
}

int64_t useful_compute_ns(const Timeline& tl, const RankPag& pag) {
  const uint32_t a = pag.init_event(), b = pag.finalize_event();
  if (a == kNoEvent || b == kNoEvent || b <= a || tl.slot(a) != tl.slot(b)) return 0;
  return std::max<int64_t>(0, tl.compute_between(a, b));
}

}  // namespace cpath
