// Wait states and root causes, the reference's own reading of docs/report.md "Wait states":
// every end edge that leads to another rank is a wait from the wait start to the partner's
// begin, named after the operation the partner belongs to; its root cause is the compute
// before the partner's call on the partner's rank since it last met other ranks (a call of its
// that waited, or a collective others waited for; short-term up to that interval's length), and
// beyond it the time the partner's thread was itself waiting meanwhile (long-term). Prints, per rank in rank order:
//   W rank call pattern partner_rank partner_call wait_from partner_begin on_path send_call
//     (send_call: for the receive-side patterns the matched send's call, for Late Receiver the
//     waiting send's own; the lowest call id if several ops waited for the partner; else "-")
//   R rank call short_ns long_ns instances      (per call that made others wait)
// and the C lines of wait_patterns.cpp (time inside calls after the partners came).
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "ref.h"

namespace cpref {

namespace {

// In the order that decides when one call waits for the same partner through several ops.
const char* const kNames[] = {"Late_Sender",   "Late_Receiver", "Wait_at_Barrier",    "Wait_at_NxN",     "Late_Broadcast",
                              "Early_Reduce",  "Early_Scan",    "Wait_at_Neighbours", "Wait_at_MPI_Init",
                              "Late_Sender_/_Wrong_Order", "Misarrangement_(MPI_Send)", "Misarrangement_(MPI_Bsend)",
                              "Late_Post", "Early_Wait", "Wait_for_Progress", "Wait_in_Collective"};

int pattern_of(const Rank& r, const Op& o) {
  switch (o.kind) {
    case OpKind::Recv:
      // Rule 10's messages (requests.cpp sync_tag): MPI_Win_start waiting for a post is a Late
      // Post, MPI_Win_wait or MPI_Win_test waiting for a complete an Early Wait.
      if (o.tag <= -1048576) return (-1048576LL - o.tag) % 2 ? 13 : 12;
      return 0;
    case OpKind::Peek:
      return 0;
    case OpKind::Send:
      if (o.tag <= -1048576) return 14;  // rule 10: only the complete's message can wait
      return 1;
    case OpKind::Flush:  // MPI_Buffer_detach waited for a buffered send's receive
      return 1;
    case OpKind::Coll: {
      switch (o.pattern) {
        case cpath::Pattern::All: {
          const char* n = o.args != kNone ? r.calls[o.args].info().name : "";
          return !std::strcmp(n, "MPI_Barrier") || !std::strcmp(n, "MPI_Ibarrier") ? 2 : 3;
        }
        case cpath::Pattern::OneToAll: return 4;
        case cpath::Pattern::AllToOne: return 5;
        case cpath::Pattern::Scan:
        case cpath::Pattern::Exscan: return 6;
        case cpath::Pattern::Neighbor: return 7;
        default: return -1;
      }
    }
    default:
      return -1;
  }
}

const char* send_call(const Rank& r, uint32_t c, int pat, const CallRef& partner) {
  const bool recv = pat == 0 || (pat >= 9 && pat <= 11);  // the Late Sender family (not rule 10's)
  if (!recv && pat != 1) return "-";
  uint16_t best = 0;
  for (uint32_t op : r.done_at[c]) {
    const Op& o = r.ops[op];
    if (recv ? o.kind != OpKind::Recv && o.kind != OpKind::Peek : o.kind != OpKind::Send && o.kind != OpKind::Flush) continue;
    bool waited = false;
    for (const CallRef& x : o.cands) waited |= x.rank == partner.rank && x.call == partner.call;
    if (!waited) continue;
    const uint16_t k = recv ? o.send_call : o.args != kNone ? r.calls[o.args].ev->call : 0;
    if (k && (!best || k < best)) best = k;
  }
  return best ? cpath::call_info(best).name : "-";
}

}  // namespace

void print_wait_states(const Job& job, const std::vector<Segment>& path) {
  std::set<std::pair<int, uint32_t>> on_path;
  for (const Segment& s : path)
    if (!std::strcmp(s.kind, "mpi") && !s.passed) on_path.insert({s.rank, s.call});
  // Every wait first: a delaying rank's own waits decide its root causes, and a higher rank's
  // are found after a lower rank's waits for it.
  struct Waited {
    CallRef partner;
    int64_t lost;
    int waiting_rank;
  };
  std::vector<Waited> waited_for;
  std::set<std::pair<int, uint32_t>> waiting_calls, waited_calls;
  std::set<std::tuple<int, uint32_t, int>> waited_by;  // (rank, call, the rank that waited for it)
  // (rank, thread) -> (call end, wait start) of each call of the thread that waited
  std::map<std::pair<int, uint32_t>, std::vector<std::pair<int64_t, int64_t>>> held;
  for (size_t rk = 0; rk < job.ranks.size(); ++rk) {
    const Rank& r = job.ranks[rk];
    // One wait at a time per thread: a wait from a poll made before the thread's previous
    // waiting call ended starts at that end (no lost time if the partner came before it).
    std::map<uint32_t, int64_t> waited_until;
    for (uint32_t c = 0; c < r.calls.size(); ++c) {
      PartnerEdge e = partner_edge(job, static_cast<int>(rk), c);
      if (!e.partner.valid()) continue;
      int pat = -1;
      if (c == r.init) pat = 8;
      for (uint32_t op : r.done_at[c]) {
        for (size_t i = 0; i < r.ops[op].cands.size(); ++i)
          if (const CallRef& ref = r.ops[op].cands[i]; ref.rank == e.partner.rank && ref.call == e.partner.call) {
            // A member that waited beyond its pattern, for a member the pattern does not name.
            const int p = r.ops[op].beyond && i >= r.ops[op].pattern_cands ? 15 : pattern_of(r, r.ops[op]);
            if (p >= 0 && (pat < 0 || p < pat)) pat = p;
          }
        // Waited for another member's progress (rule 4): the instance's pattern, or Wait in
        // Collective for a member found waiting beyond it.
        if (const CallRef g = progress_candidate(job, static_cast<int>(rk), r.ops[op]); g.rank == e.partner.rank && g.call == e.partner.call) {
          const int p = r.ops[op].beyond ? 15 : pattern_of(r, r.ops[op]);
          if (p >= 0 && (pat < 0 || p < pat)) pat = p;
        }
      }
      if (pat < 0) continue;
      auto wu = waited_until.find(r.calls[c].thread);
      if (wu != waited_until.end()) e.wait_from = std::min(e.partner_b, std::max(e.wait_from, wu->second));
      waited_until[r.calls[c].thread] = r.calls[c].e;
      if (pat == 0) {
        const int m = misarrangement(job, static_cast<int>(rk), c, e.partner);
        if (m) pat = 9 + m;
        else if (late_sender_wrong_order(job, static_cast<int>(rk), c, e.partner)) pat = 9;
      }
      std::printf("W %zu %u %s %d %u %" PRId64 " %" PRId64 " %d %s\n", rk, c, kNames[pat], e.partner.rank, e.partner.call,
                  e.wait_from, e.partner_b, on_path.count({static_cast<int>(rk), c}) ? 1 : 0, send_call(r, c, pat, e.partner));
      waiting_calls.insert({static_cast<int>(rk), c});
      waited_calls.insert({e.partner.rank, e.partner.call});
      held[{static_cast<int>(rk), r.calls[c].thread}].emplace_back(r.calls[c].e, e.wait_from);
      if (e.partner_b - e.wait_from > 0) waited_for.push_back({e.partner, e.partner_b - e.wait_from, static_cast<int>(rk)});
      waited_by.insert({e.partner.rank, e.partner.call, static_cast<int>(rk)});
    }
  }
  // Each thread's waiting time as disjoint spans [wait start, call end], in time order: a wait
  // that starts before the previous one ended starts at that end (one wait at a time).
  std::map<std::pair<int, uint32_t>, std::vector<std::pair<int64_t, int64_t>>> spans;
  for (auto& [k, v] : held) {
    std::sort(v.begin(), v.end());
    int64_t until = INT64_MIN;
    for (const auto& [end, from] : v) {
      const int64_t a = std::max(from, until);
      if (a < end) spans[k].emplace_back(a, end);
      until = std::max(until, end);
    }
  }
  // (rank, call) waited for -> short, long, instances
  std::map<std::pair<int, uint32_t>, std::tuple<int64_t, int64_t, uint32_t>> caused;
  for (const Waited& w : waited_for) {
    const Rank& q = job.ranks[static_cast<size_t>(w.partner.rank)];
    const Call& pc = q.calls[w.partner.call];
    // The work since the partner's thread last met other ranks: back over calls where it did
    // not, whatever they are (a non-blocking post, or an eager MPI_Send or an MPI_Test that
    // returned at once, between two stretches of work delays like the work). Met: it waited
    // there, the waiting rank waited for it there, or others waited for it in a collective (the
    // group left together; a send one peer waited for says nothing of the others). Nothing
    // before the call (MPI_Init): the rank's start-up caused the whole wait. Only along the
    // partner's own thread (a thread's first call follows its creator's).
    const auto met = [&](uint32_t f) {
      if (waiting_calls.count({w.partner.rank, f})) return true;
      // The waiting rank met it here before: it waited for this call too.
      if (waited_by.count({w.partner.rank, f, w.waiting_rank})) return true;
      if (!waited_calls.count({w.partner.rank, f})) return false;
      // Not a non-blocking or persistent collective's post: its members leave together only in
      // the calls that complete the instance.
      const cpath::CallInfo& ci = q.calls[f].info();
      if ((ci.kind == cpath::CallKind::Collective || ci.kind == cpath::CallKind::CommNew) &&
          !(ci.flags & (cpath::kCallNonBlocking | cpath::kCallPersistent)))
        return true;
      for (uint32_t op : q.done_at[f])
        if (q.ops[op].kind == OpKind::Coll) return true;  // rule 4: the collective's progress call
      return false;
    };
    int64_t before = pc.from == kNone ? INT64_MAX : 0;
    for (uint32_t x = w.partner.call; before != INT64_MAX;) {
      const uint32_t f = q.calls[x].from;
      before += std::max<int64_t>(0, q.calls[x].b - q.calls[f].e);
      const uint32_t ff = q.calls[f].from;
      if (q.calls[f].thread != pc.thread || met(f) || ff == kNone || q.calls[ff].thread != pc.thread) break;
      x = f;
    }
    const int64_t s = std::min(w.lost, before);
    // Propagated: the part of the wait's span [partner begin - lost, partner begin] the partner's
    // thread spent waiting itself; the rest of what the interval does not explain was neither.
    int64_t held_ns = 0;
    auto sp = spans.find({w.partner.rank, pc.thread});
    if (s < w.lost && sp != spans.end())
      for (const auto& [a, b] : sp->second)
        held_ns += std::max<int64_t>(0, std::min(b, pc.b) - std::max(a, pc.b - w.lost));
    auto& t = caused[{w.partner.rank, w.partner.call}];
    std::get<0>(t) += s;
    std::get<1>(t) += std::min(w.lost - s, held_ns);
    std::get<2>(t) += 1;
  }
  for (const auto& [k, t] : caused)
    std::printf("R %d %u %" PRId64 " %" PRId64 " %u\n", k.first, k.second, std::get<0>(t), std::get<1>(t), std::get<2>(t));
  print_time_in_calls(job, on_path);
}

}  // namespace cpref
