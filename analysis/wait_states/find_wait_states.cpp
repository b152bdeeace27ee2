#include <algorithm>
#include <climits>
#include <cstdint>

#include "wait_states.h"

namespace cpath {

std::vector<uint32_t> path_mpi_calls(const WalkResult& walk) {
  std::vector<uint32_t> on_path;
  for (const Segment& s : walk.path)
    if (s.kind == SegmentKind::Mpi && !s.passed) on_path.push_back(s.event);
  std::sort(on_path.begin(), on_path.end());
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
    if (t.rank == me && tl.ev[t.event].slot == tl.ev[i].slot) continue;
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
    const uint32_t slot = tl.ev[i].slot;
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

int64_t CauseWalker::interval(uint32_t event, uint32_t* start) {
  const uint32_t p = tl_.prev[event];
  *start = p;
  if (p == kNoEvent) return INT64_MAX;
  const int64_t last = compute_before_call(tl_, event);
  const uint32_t slot = tl_.ev[event].slot;
  if (tl_.ev[p].slot != slot) return last;  // a thread's first call: its creator's call before it
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
    const uint32_t q = tl_.prev[y];
    if (q == kNoEvent || tl_.ev[q].slot != slot || !never_waits(call_info(tl_.ev[y].e.call))) break;
    acc += compute_before_call(tl_, y);
    y = q;
  }
  m = Memo{p, y, acc};
  *start = y;
  return last + acc;
}

void for_each_delay_cost(const Timeline& tl, const std::vector<CausedWait>& caused, const std::function<void(const DelayCost&)>& f) {
  DelayCost d;
  CauseWalker walker(tl);
  bool open = false;
  for (const CausedWait& c : caused) {
    if (c.event >= tl.ev.size() || c.lost <= 0) continue;
    if (open && d.event != c.event) f(d);
    if (!open || d.event != c.event) {
      d = DelayCost{c.event, 0, 0, 0};
      d.interval = walker.interval(c.event, &d.start);
    }
    open = true;
    const int64_t s = std::min(c.lost, d.interval);
    d.short_ns += s;
    d.long_ns += c.lost - s;
    ++d.instances;
  }
  if (open) f(d);
}

std::vector<DelayCost> delay_costs(const Timeline& tl, const std::vector<CausedWait>& caused) {
  std::vector<DelayCost> out;
  for_each_delay_cost(tl, caused, [&](const DelayCost& d) { out.push_back(d); });
  return out;
}

int64_t useful_compute_ns(const Timeline& tl, const RankPag& pag) {
  const uint32_t a = pag.init_event(), b = pag.finalize_event();
  if (a == kNoEvent || b == kNoEvent || b <= a || tl.ev[a].slot != tl.ev[b].slot) return 0;
  return std::max<int64_t>(0, tl.compute_between(a, b));
}

}  // namespace cpath
