#include "clock_repair.h"

#include <algorithm>

#include "byte_io.h"
#include "sparse_exchange.h"

namespace cpath {

void clock_repair_pass(const std::vector<int64_t>& b, const std::vector<int64_t>& e,
                       const std::vector<uint32_t>& prev, const std::vector<uint32_t>& cons_begin,
                       const std::vector<int64_t>& partner_begin, int64_t lmin, std::vector<int64_t>* beta,
                       std::vector<int64_t>* delta, std::vector<int64_t>* need) {
  const size_t n = b.size();
  beta->assign(n, 0);
  delta->assign(n, 0);
  need->assign(n, kNoConstraint);
  for (size_t i = 0; i < n; ++i) {
    const int64_t bi = prev[i] == kNoEvent ? 0 : (*delta)[prev[i]];
    int64_t nd = kNoConstraint;
    for (uint32_t k = cons_begin[i]; k < cons_begin[i + 1]; ++k)
      if (partner_begin[k] != kNoConstraint) nd = std::max(nd, partner_begin[k] + lmin - e[i]);
    (*beta)[i] = bi;
    (*need)[i] = nd;
    (*delta)[i] = std::max(bi, nd);
  }
}

int64_t ClockRepairResult::shift_at(const Timeline& tl, int64_t t, const std::vector<uint32_t>* calls) const {
  if (beta.empty() || beta.size() != tl.ev.size()) return 0;
  const size_t n = calls ? calls->size() : tl.ev.size();
  auto event = [&](size_t k) -> size_t { return calls ? (*calls)[k] : k; };
  // Original begins are in timeline order: the last call that began at or before t.
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const size_t e = event(mid);
    if (tl.ev[e].begin - beta[e] <= t) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return 0;
  const size_t i = event(lo - 1);
  return t <= tl.ev[i].end - delta[i] ? beta[i] : delta[i];
}

namespace {

enum class ConKind : uint8_t { Send, Collective, Init };
struct Con {
  ConKind kind;
  uint32_t ref;  // Send: index into the matched sends (refs); Collective: op index; Init: 0
};

}  // namespace

ClockRepairResult repair_clock_conditions(Timeline& tl, const OpTable& ops, const RankPag& pag, PartnerTable* partners,
                                          int64_t lmin, int max_rounds, MPI_Comm comm, const ReplayAgain& replay_again) {
  ClockRepairResult res;
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  const size_t n = tl.ev.size();
  // The constraints of call i (rule B), each as f(kind, op): MPI_Init's instance, the matched
  // send of every receive or peek it completes (the p2p replay's partner of that op, read
  // before any replay_again rebuilds the partners), every collective it completes that the
  // MPI synchronised (a member that moves no data or was not synchronised waits only for
  // members that came before it ended, rule 4: a later one is no violation).
  auto for_each_constraint = [&](uint32_t i, auto&& f) {
    if (pag.is_init(i)) f(ConKind::Init, 0u);
    for (uint32_t k = ops.done_begin[i]; k < ops.done_begin[i + 1]; ++k) {
      const uint32_t op = ops.done_ops[k];
      const Op& o = ops.ops[op];
      const Partner& s = partners->of_op[op];
      if ((o.kind == OpKind::Recv || o.kind == OpKind::Peek) && s.valid() && s.rank < np) f(ConKind::Send, op);
      else if (o.kind == OpKind::Collective && !partners->observed_at(op)) f(ConKind::Collective, op);
    }
  };
  // A constraint's partner begin before any shift; kNoConstraint for a collective's or
  // MPI_Init's partner that is this rank itself.
  auto unshifted_begin = [&](ConKind kind, uint32_t op) {
    const Partner& p = kind == ConKind::Init ? partners->init : partners->of_op[op];
    return p.valid() && (kind == ConKind::Send || p.rank != me) ? p.begin : kNoConstraint;
  };
  // Most runs (one clock on one host) violate nothing. Finding that out on the timeline itself
  // spares the rounds' arrays (about 65 bytes per event, the analysis's peak at halo_bench
  // 100k on 4 ranks); the test is the first round's: some constraint's partner begin + lmin
  // later than the call's end (with no shift yet, no end moves otherwise).
  int any = 0;
  for (uint32_t i = 0; i < n && !any; ++i)
    for_each_constraint(i, [&](ConKind kind, uint32_t op) {
      const int64_t b = unshifted_begin(kind, op);
      any |= b != kNoConstraint && b + lmin > tl.ev[i].end;
    });
  int all = 0;
  tool_allreduce(&any, &all, 1, MPI_INT, MPI_MAX, comm);
  res.rounds = 1;
  if (!all) return res;  // no violation anywhere: nothing moves
  std::vector<int64_t> ob(n), oe(n);
  std::vector<uint32_t> prev(n);
  for (size_t i = 0; i < n; ++i) {
    ob[i] = tl.ev[i].begin;
    oe[i] = tl.ev[i].end;
    prev[i] = pag.is_init(static_cast<uint32_t>(i)) ? kNoEvent : pag.prev(static_cast<uint32_t>(i));
  }

  // Constraints per call. A matched send is a remote reference (rank, event) whose begin shift
  // that rank reports once it changes.
  std::vector<uint32_t> cons_begin(n + 1, 0);
  std::vector<Con> cons;
  struct RemoteRef {
    int32_t rank;
    uint32_t event;
    int64_t begin;  // the matched send's aligned begin, as the replay saw it
  };
  std::vector<RemoteRef> refs;
  for (uint32_t i = 0; i < n; ++i) {
    cons_begin[i] = static_cast<uint32_t>(cons.size());
    for_each_constraint(i, [&](ConKind kind, uint32_t op) {
      if (kind != ConKind::Send) return cons.push_back({kind, op});
      const Partner& s = partners->of_op[op];
      cons.push_back({ConKind::Send, static_cast<uint32_t>(refs.size())});
      refs.push_back({s.rank, s.event, s.begin});
    });
  }
  cons_begin[n] = static_cast<uint32_t>(cons.size());
  std::vector<uint32_t> coll_posts;  // events posting this rank's collectives
  for (const Op& o : ops.ops)
    if (o.kind == OpKind::Collective && o.post != kNoEvent) coll_posts.push_back(o.post);
  std::sort(coll_posts.begin(), coll_posts.end());
  coll_posts.erase(std::unique(coll_posts.begin(), coll_posts.end()), coll_posts.end());
  std::vector<int64_t> remote_shift(refs.size(), 0);

  std::vector<int64_t> pb(cons.size()), beta, delta, need;
  auto fill_partner_begins = [&] {
    for (size_t k = 0; k < cons.size(); ++k) {
      const Con& c = cons[k];
      pb[k] = c.kind == ConKind::Send ? refs[c.ref].begin + remote_shift[c.ref] : unshifted_begin(c.kind, c.ref);
    }
  };

  // Set up only once something moved. Each rank sends every other the distinct events it
  // waits on, in (rank, event) order; an update names the position in that list.
  struct Sub {  // a rank waiting on one of this rank's events
    uint32_t event;
    int32_t rank;
    uint32_t pos;
    int64_t sent;
  };
  std::vector<Sub> subs;
  std::vector<uint32_t> order, slot_first, rank_first(static_cast<size_t>(np) + 1, 0);
  bool subscribed = false;
  auto subscribe = [&] {
    order.resize(refs.size());
    for (uint32_t k = 0; k < refs.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
      return refs[a].rank != refs[c].rank ? refs[a].rank < refs[c].rank : refs[a].event < refs[c].event;
    });
    std::vector<ByteWriter> w(static_cast<size_t>(np));
    std::vector<uint32_t> per_rank(static_cast<size_t>(np), 0);
    for (uint32_t j = 0; j < order.size(); ++j) {
      const RemoteRef& r = refs[order[j]];
      if (j == 0 || refs[order[j - 1]].rank != r.rank || refs[order[j - 1]].event != r.event) {
        slot_first.push_back(j);
        w[static_cast<size_t>(r.rank)].put<uint32_t>(r.event);
        ++per_rank[static_cast<size_t>(r.rank)];
      }
    }
    slot_first.push_back(static_cast<uint32_t>(order.size()));
    for (int p = 0; p < np; ++p) rank_first[static_cast<size_t>(p) + 1] = rank_first[static_cast<size_t>(p)] + per_rank[static_cast<size_t>(p)];
    std::vector<std::vector<uint8_t>> out(static_cast<size_t>(np));
    for (int p = 0; p < np; ++p) out[static_cast<size_t>(p)].swap(w[static_cast<size_t>(p)].bytes());
    const std::vector<std::vector<uint8_t>> in = exchange_bytes(out, comm);
    for (int p = 0; p < np; ++p) {
      ByteReader r(in[static_cast<size_t>(p)].data(), in[static_cast<size_t>(p)].size());
      uint32_t ev = 0;
      for (uint32_t pos = 0; r.left() > 0 && r.get(ev); ++pos)
        if (ev < n) subs.push_back({ev, p, pos, 0});
    }
    subscribed = true;
  };
  auto apply_update = [&](int p, uint32_t pos, int64_t shift) {
    const uint32_t first = rank_first[static_cast<size_t>(p)];
    if (pos >= rank_first[static_cast<size_t>(p) + 1] - first) return;
    for (uint32_t j = slot_first[first + pos]; j < slot_first[first + pos + 1]; ++j) remote_shift[order[j]] = shift;
  };

  std::vector<char> violated;
  std::vector<int64_t> coll_sent(coll_posts.size(), 0);
  uint64_t violations = 0;
  for (int round = 1;; ++round) {
    fill_partner_begins();
    clock_repair_pass(ob, oe, prev, cons_begin, pb, lmin, &beta, &delta, &need);
    res.rounds = round;
    int flags[3] = {0, 0, 0};  // sends changed, collectives changed, anything moved
    if (round == 1) {
      violated.assign(n, 0);
      for (size_t i = 0; i < n; ++i)
        if (need[i] != kNoConstraint && need[i] > 0) {
          violated[i] = 1;
          ++violations;
        }
    }
    for (const Sub& s : subs) flags[0] |= beta[s.event] != s.sent;
    for (size_t k = 0; k < coll_posts.size(); ++k) flags[1] |= beta[coll_posts[k]] != coll_sent[k];
    for (size_t i = 0; i < n && !flags[2]; ++i) flags[2] = delta[i] != 0;
    if (!subscribed) {
      // Before the first exchange nobody knows its subscribers: any moved begin may matter.
      for (size_t i = 0; i < n && !flags[0]; ++i) flags[0] = beta[i] != 0;
    }
    int all[3] = {0, 0, 0};
    tool_allreduce(flags, all, 3, MPI_INT, MPI_MAX, comm);
    if (round == 1 && !all[2]) return res;  // no violation anywhere: nothing moves
    if (!all[0] && !all[1]) break;          // fixpoint
    if (all[0]) {
      if (!subscribed) subscribe();
      std::vector<std::vector<uint8_t>> out(static_cast<size_t>(np));
      std::vector<ByteWriter> w(static_cast<size_t>(np));
      for (Sub& s : subs)
        if (beta[s.event] != s.sent) {
          s.sent = beta[s.event];
          w[static_cast<size_t>(s.rank)].put<uint32_t>(s.pos);
          w[static_cast<size_t>(s.rank)].put<int64_t>(s.sent);
        }
      for (int p = 0; p < np; ++p) out[static_cast<size_t>(p)].swap(w[static_cast<size_t>(p)].bytes());
      const std::vector<std::vector<uint8_t>> in = exchange_bytes(out, comm);
      for (int p = 0; p < np; ++p) {
        ByteReader r(in[static_cast<size_t>(p)].data(), in[static_cast<size_t>(p)].size());
        uint32_t pos = 0;
        int64_t shift = 0;
        while (r.left() > 0 && r.get(pos) && r.get(shift)) apply_update(p, pos, shift);
      }
    }
    if (all[1]) {
      for (size_t k = 0; k < coll_posts.size(); ++k) coll_sent[k] = beta[coll_posts[k]];
      for (size_t i = 0; i < n; ++i) tl.ev[i].begin = ob[i] + beta[i];
      replay_again(false);
    }
    if (round >= max_rounds) {
      res.converged = false;
      break;
    }
  }

  unsigned long long local[4] = {violations, 0, 0, 0};  // violations, repaired, unrepaired, shifted
  if (res.converged) {
    local[1] = violations;
  } else {
    // What is left: the constraints with the partners' last shifts.
    std::vector<int64_t> b2, d2, need2;
    fill_partner_begins();
    clock_repair_pass(ob, oe, prev, cons_begin, pb, lmin, &b2, &d2, &need2);
    for (size_t i = 0; i < n; ++i) {
      const bool bad = need2[i] != kNoConstraint && need2[i] > delta[i];
      local[2] += bad;
      local[1] += violated[i] && !bad;
    }
  }
  long long max_shift = 0;
  for (size_t i = 0; i < n; ++i) {
    local[3] += delta[i] > 0;
    max_shift = std::max<long long>(max_shift, delta[i]);
    tl.ev[i].begin = ob[i] + beta[i];
    tl.ev[i].end = oe[i] + delta[i];
  }
  replay_again(true);
  unsigned long long sums[4] = {0, 0, 0, 0};
  tool_allreduce(local, sums, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  long long max_all = 0;
  tool_allreduce(&max_shift, &max_all, 1, MPI_LONG_LONG, MPI_MAX, comm);
  res.violations = sums[0];
  res.repaired = sums[1];
  res.unrepaired = sums[2];
  res.shifted = sums[3];
  res.max_shift_ns = max_all;
  res.converged = res.unrepaired == 0;  // a state with nothing left violated is the fixpoint
  if (local[3]) {
    res.beta.swap(beta);
    res.delta.swap(delta);
  }
  return res;
}

}  // namespace cpath
