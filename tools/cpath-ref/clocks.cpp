// The clock-condition repair (docs/pag-rules.md, "Clocks" B), written plainly: a begin shift
// beta and an end shift delta per call, rounds over all ranks reading the previous round's
// shifts, until the begin shifts stop changing.
//   beta(c)  = delta(prev(c))                        (prev: rule 1's, on the aligned times)
//   need(c)  = max over c's constraints of  P + lmin - e(c)
//   delta(c) = max(beta(c), need(c))
// Constraints of c: every receive or probe it completed that matched a send (P: the send's
// posting call's begin), every collective instance it completed and MPI_Init (P: the begin of
// the latest candidate L of rule 4, the member's own posting call competing when its pattern's
// set contains it; ties to the lowest world rank; only when L is on another rank; none for a
// member that moves no data, which waits only for those that came before it ended). Begins of
// partners are read shifted by the previous round. Traces without the repair's parameters in
// their meta data (clock_repair_rounds, clock_lmin_ns) were analysed without it: none here.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "ref.h"

namespace cpref {

namespace {

// The least wait beyond a pattern that counts: a root's eager sends take microseconds, and a
// receiver that entered meanwhile did not hold it (docs/pag-rules.md rule 4).
constexpr int64_t kBeyondFloorNs = 20000;

// Rule 4: only a member moving more than this may wait beyond its pattern: the smaller inline
// limit of the rank (its eager limit where it records none; 4096 and 65536 where neither is).
int64_t hold_min(const Rank& r) {
  const int64_t ei = r.eager_intra >= 0 ? r.eager_intra : 4096, ee = r.eager_inter >= 0 ? r.eager_inter : 65536;
  return std::min(r.inline_intra >= 0 ? r.inline_intra : ei, r.inline_inter >= 0 ? r.inline_inter : ee);
}

using Shifts = std::vector<std::vector<int64_t>>;

struct Repair {
  Job& job;
  int64_t lmin = 1;
  const Shifts* beta = nullptr;  // previous round's begin shifts

  int64_t begin(const CallRef& c) const {
    return job.ranks[static_cast<size_t>(c.rank)].calls[c.call].b + (*beta)[static_cast<size_t>(c.rank)][c.call];
  }

  // The latest of `cands` (and `own` when it competes) by shifted begin, ties to the lowest
  // world rank, then the lowest call.
  CallRef latest(const std::vector<CallRef>& cands, const CallRef& own, bool own_competes) const {
    CallRef best;
    int64_t bb = 0;
    auto consider = [&](const CallRef& c) {
      if (!c.valid()) return;
      const int64_t b = begin(c);
      if (!best.valid() || b > bb || (b == bb && (c.rank < best.rank || (c.rank == best.rank && c.call < best.call)))) {
        best = c;
        bb = b;
      }
    };
    if (own_competes) consider(own);
    for (const CallRef& c : cands) consider(c);
    return best;
  }

  // need(c); INT64_MIN without constraints.
  int64_t need(int rk, uint32_t i) const {
    const Rank& r = job.ranks[static_cast<size_t>(rk)];
    const int64_t e = r.calls[i].e;
    int64_t n = INT64_MIN;
    auto partner = [&](const CallRef& p) {
      if (p.valid() && p.rank != rk) n = std::max(n, begin(p) + lmin - e);
    };
    if (i == r.init) {
      std::vector<CallRef> inits;
      for (size_t o = 0; o < job.ranks.size(); ++o)
        if (static_cast<int>(o) != rk && job.ranks[o].init != kNone) inits.push_back({static_cast<int32_t>(o), job.ranks[o].init});
      partner(latest(inits, {rk, i}, true));
    }
    for (uint32_t op : r.done_at[i]) {
      const Op& o = r.ops[op];
      if (o.kind == OpKind::Recv || o.kind == OpKind::Peek) partner(o.send);
      else if (o.kind == OpKind::Coll && !o.no_data && !o.unsync && !o.beyond && (!o.cands.empty() || o.own_in_set)) partner(latest(o.cands, {rk, o.post}, o.own_in_set));
    }
    return n;
  }
};

int64_t meta_number(const Job& job, const char* key, int64_t dflt, bool* present) {
  const std::string v = job.ranks.front().trace.meta_value(key);
  if (v.empty()) return dflt;
  *present = true;
  return std::atoll(v.c_str());
}

}  // namespace

void repair_clocks(Job* job, bool list_violations) {
  ClockRepair& out = job->clock;
  if (job->ranks.empty()) return;
  Repair rep{*job};
  // Rule 4, collectives MPI did not synchronise: on the aligned times, a member that ended before
  // its latest candidate began, beyond both clocks' error, did not wait for it.
  {
    // Clocks of several hosts left unaligned (align=0) have no error bound: nothing is decided.
    double err = 0;
    bool unaligned = false;
    for (const Rank& r : job->ranks) {
      err = std::max(err, r.trace.align_error_ns);
      unaligned = unaligned || (r.trace.meta_value("clock_aligned") != "1" &&
                                std::atoll(r.trace.meta_value("clock_hosts").c_str()) > 1);
    }
    const int64_t slack = unaligned ? INT64_MAX : static_cast<int64_t>(2 * err);
    Shifts zero(job->ranks.size());
    for (size_t r = 0; r < job->ranks.size(); ++r) zero[r].assign(job->ranks[r].calls.size(), 0);
    rep.beta = &zero;
    for (size_t r = 0; r < job->ranks.size(); ++r) {
      Rank& rk = job->ranks[r];
      for (Op& o : rk.ops) {
        if (o.kind != OpKind::Coll || o.no_data || o.done == kNone) continue;
        const CallRef l = rep.latest(o.cands, {static_cast<int32_t>(r), o.post}, o.own_in_set);
        if (o.pattern != cpath::Pattern::Neighbor && l.valid() && l.rank != static_cast<int32_t>(r) &&
            rep.begin(l) - rk.calls[o.done].e > slack) {
          o.unsync = true;
          ++out.unsynchronised;
          continue;
        }
        // Waited beyond the pattern: another member entered more than the floor after this one,
        // its pattern's latest candidate and the begin of its completing call, and more than
        // the clocks' error before that call ended.
        if (o.others.empty() || slack == INT64_MAX || static_cast<int64_t>(o.bytes) <= hold_min(rk)) continue;
        const int64_t floor = std::max<int64_t>(slack, kBeyondFloorNs), e = rk.calls[o.done].e;
        // From where the completing call's thread began waiting: its first poll (rule 5).
        const uint32_t ws = o.first_poll != kNone && o.first_poll < o.done ? o.first_poll : o.done;
        int64_t base = std::max(rk.calls[o.post].b, rk.calls[ws].b);
        if (l.valid()) base = std::max(base, rep.begin(l));
        bool came = false;
        for (const CallRef& x : o.others) came = came || (rep.begin(x) - base > floor && e - rep.begin(x) > slack);
        if (came) {
          o.beyond = true;
          o.pattern_cands = o.cands.size();
          o.cands.insert(o.cands.end(), o.others.begin(), o.others.end());
          o.own_in_set = true;
          ++out.beyond_pattern;
        }
      }
    }
  }
  bool present = false;
  rep.lmin = meta_number(*job, "clock_lmin_ns", 1, &present);
  const int64_t rounds = meta_number(*job, "clock_repair_rounds", 64, &present);
  if (!present) return;
  out.applied = true;
  const size_t np = job->ranks.size();
  Shifts beta(np), delta(np);
  std::vector<std::vector<char>> violated(np);
  for (size_t r = 0; r < np; ++r) {
    beta[r].assign(job->ranks[r].calls.size(), 0);
    delta[r].assign(job->ranks[r].calls.size(), 0);
    violated[r].assign(job->ranks[r].calls.size(), 0);
  }
  for (int k = 1;; ++k) {
    Shifts nb(np), nd(np);
    bool changed = false;
    rep.beta = &beta;
    for (size_t r = 0; r < np; ++r) {
      const Rank& rk = job->ranks[r];
      nb[r].assign(rk.calls.size(), 0);
      nd[r].assign(rk.calls.size(), 0);
      for (uint32_t i = 0; i < rk.calls.size(); ++i) {
        const uint32_t p = rk.calls[i].from;
        nb[r][i] = p == kNone ? 0 : nd[r][p];
        const int64_t n = rep.need(static_cast<int>(r), i);
        nd[r][i] = std::max(nb[r][i], n);
        if (k == 1 && n != INT64_MIN && n > 0) {
          violated[r][i] = 1;
          ++out.violations;
          if (list_violations)
            std::printf("violation rank %zu event %u %s ends %lld ns too early\n", r, i, rk.calls[i].info().name,
                        static_cast<long long>(n));
        }
      }
      changed = changed || nb[r] != beta[r];
    }
    beta.swap(nb);
    delta.swap(nd);
    out.rounds = k;
    if (!changed || k >= rounds) break;
  }
  rep.beta = &beta;
  for (size_t r = 0; r < np; ++r) {
    Rank& rk = job->ranks[r];
    for (uint32_t i = 0; i < rk.calls.size(); ++i) {
      const int64_t n = rep.need(static_cast<int>(r), i);
      const bool bad = n != INT64_MIN && n > delta[r][i];
      out.unrepaired += bad;
      out.repaired += violated[r][i] && !bad;
      out.shifted += delta[r][i] > 0;
      out.max_shift = std::max(out.max_shift, delta[r][i]);
    }
  }
  for (size_t r = 0; r < np; ++r) {
    Rank& rk = job->ranks[r];
    for (uint32_t i = 0; i < rk.calls.size(); ++i) {
      rk.calls[i].b += beta[r][i];
      rk.calls[i].e += delta[r][i];
    }
  }
}

}  // namespace cpref
