// cpath-ref --whatif DIR: the what-if re-timing (docs/what-if.md), sequentially over all ranks
// with the reference's own partner candidates, the twin of replay/forward_pass.cpp and
// analysis/what_if.cpp. The scenarios come from the whatif.<rank>.txt files the run wrote
// (option path=1): their kinds and factors, and for activity and function scenarios the
// factors of the intervals they touch (naming call sites and reading samples is not the
// re-timing under test). Rank, balance, network and start-up factors are computed here.
// Prints "result <scenario> <end_ns> <run_ns>" per scenario, as the run's rank 0 file does, and
// each scenario's new critical path, walked back from the latest new MPI_Finalize entry along the
// dependency that set every new end (the own begin unless a dependency began later; among those
// the latest, ties to the lowest rank and call): "path_rank_changes <scenario> <n>" and
// "path <scenario> <rank> <kind> <call>:<site> <prev call>:<prev site>|- <ns>", the path's time per
// raw activity, as the run's whatif.<rank>.txt files list it.
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ref.h"

namespace cpref {

namespace {

struct Scen {
  std::string kind, target;
  double factor = 1;
  std::vector<std::pair<char, double>> terms;  // 'r' rank (factor), 'b' balance, 'n' network, 's' start-up
  std::vector<int> term_rank;
  // Per rank: call -> dumped factor of the compute before it (c) and of its own MPI time (m).
  std::vector<std::map<uint32_t, double>> c, m;
};

int64_t scale(int64_t d, double f) { return f == 1.0 ? d : static_cast<int64_t>(std::llround(static_cast<double>(d) * f)); }

bool read_scenarios(const std::string& dir, int np, std::vector<Scen>* out) {
  for (int r = 0; r < np; ++r) {
    const std::string path = dir + "/whatif." + std::to_string(r) + ".txt";
    FILE* f = std::fopen(path.c_str(), "r");
    if (!f) {
      std::fprintf(stderr, "cpath-ref: cannot read %s (run with option path=1)\n", path.c_str());
      return false;
    }
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
      char kind[64] = {0}, target[3000] = {0};
      int s = 0;
      unsigned ev = 0;
      double x = 0;
      if (r == 0 && std::sscanf(line, "scenario %d %63s %lf %2999[^\n]", &s, kind, &x, target) >= 3) {
        if (s != static_cast<int>(out->size())) continue;
        Scen sc;
        sc.kind = kind;
        sc.target = target;
        sc.factor = x;
        sc.c.resize(static_cast<size_t>(np));
        sc.m.resize(static_cast<size_t>(np));
        if (sc.kind == "balance") sc.terms.push_back({'b', 0});
        else if (sc.kind == "network") sc.terms.push_back({'n', x});
        else if (sc.kind == "startup") sc.terms.push_back({'s', x});
        else if (sc.kind == "user") {
          std::string t = sc.target;
          size_t p = 0;
          while (p <= t.size()) {
            size_t q = t.find('+', p);
            if (q == std::string::npos) q = t.size();
            const std::string one = t.substr(p, q - p);
            p = q + 1;
            char* end = nullptr;
            if (one.size() > 4 && one.compare(0, 4, "rank") == 0) {
              const long v = std::strtol(one.c_str() + 4, &end, 10);
              if (end && !*end && v >= 0 && v < np) {
                sc.terms.push_back({'r', x});
                sc.term_rank.push_back(static_cast<int>(v));
                continue;
              }
            }
            if (one == "mpi" || one == "network") sc.terms.push_back({'n', x});
            else if (one == "startup") sc.terms.push_back({'s', x});
          }
        }
        out->push_back(sc);
      } else if (std::sscanf(line, "c %d %u %lf", &s, &ev, &x) == 3 && s >= 0 && static_cast<size_t>(s) < out->size()) {
        (*out)[static_cast<size_t>(s)].c[static_cast<size_t>(r)][ev] = x;
      } else if (std::sscanf(line, "m %d %u %lf", &s, &ev, &x) == 3 && s >= 0 && static_cast<size_t>(s) < out->size()) {
        (*out)[static_cast<size_t>(s)].m[static_cast<size_t>(r)][ev] = x;
      }
    }
    std::fclose(f);
  }
  return !out->empty();
}

}  // namespace

// cpath-ref --pop: the POP factors (docs/report.md "POP efficiency"), the ideal run re-timed
// here with every call's own MPI time zero (scenario 1) against the identity (scenario 0).
void print_pop(const Job& job, const std::vector<int64_t>& ends) {
  const int np = static_cast<int>(job.ranks.size());
  int64_t first_init_end = INT64_MAX, last_fin = INT64_MIN;
  double umax = 0, usum = 0;
  for (int r = 0; r < np; ++r) {
    const Rank& R = job.ranks[static_cast<size_t>(r)];
    if (R.init != kNone) first_init_end = std::min(first_init_end, R.calls[R.init].e);
    if (R.finalize != kNone) last_fin = std::max(last_fin, R.calls[R.finalize].b);
    double useful = 0;
    if (R.init != kNone && R.finalize != kNone && R.finalize > R.init &&
        R.calls[R.init].thread == R.calls[R.finalize].thread)
      useful = static_cast<double>(std::max<int64_t>(
                   0, R.calls[R.finalize].compute_before - R.calls[R.init].compute_before)) * 1e-9;
    umax = std::max(umax, useful);
    usum += useful;
  }
  if (first_init_end == INT64_MAX || last_fin == INT64_MIN || umax <= 0) {
    std::printf("efficiency unknown\n");
    return;
  }
  const double window = static_cast<double>(last_fin - first_init_end) * 1e-9;
  if (window <= 0) {
    std::printf("efficiency unknown\n");
    return;
  }
  const double um = std::min(umax, window);
  const double gain = static_cast<double>(ends[0] - ends[1]) * 1e-9;
  const double ideal = std::max(um, std::min(window, window - gain));
  const double lb = usum / np / umax, comm = um / window;
  std::printf("elapsed_s %.9f\nuseful_max_s %.9f\nuseful_mean_s %.9f\nideal_s %.9f\n", window, umax, usum / np, ideal);
  std::printf("load_balance %.9f\ncommunication %.9f\nparallel %.9f\nserialisation %.9f\ntransfer %.9f\n", lb, comm,
              lb * comm, um / ideal, ideal / window);
}

int what_if_main(const Job& job, const std::string& dir, bool pop) {
  const int np = static_cast<int>(job.ranks.size());
  std::vector<Scen> sc;
  if (pop) {
    sc.resize(2);
    for (Scen& x : sc) x.c.resize(static_cast<size_t>(np)), x.m.resize(static_cast<size_t>(np));
    sc[1].kind = "network";
    sc[1].factor = 0;
    sc[1].terms.push_back({'n', 0.0});
  } else if (!read_scenarios(dir, np, &sc)) {
    return 1;
  }
  std::vector<int64_t> ends;
  const size_t S = sc.size();
  // Compute per rank (balance).
  std::vector<long long> comp(static_cast<size_t>(np), 0);
  long long all = 0;
  // Wall-clock compute: the union of the rank's compute intervals (threads at once count once).
  for (int r = 0; r < np; ++r) {
    const Rank& R = job.ranks[static_cast<size_t>(r)];
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (const Call& k : R.calls)
      if (k.from != kNone && k.b > R.calls[k.from].e) iv.emplace_back(R.calls[k.from].e, k.b);
    std::sort(iv.begin(), iv.end());
    int64_t reach = INT64_MIN;
    for (const auto& [b, e] : iv) {
      if (e > std::max(b, reach)) comp[static_cast<size_t>(r)] += e - std::max(b, reach);
      reach = std::max(reach, e);
    }
    all += comp[static_cast<size_t>(r)];
  }
  const double mean = static_cast<double>(all) / np;

  // Vertices: 2 per call (begin, end), numbered per rank from base[r].
  std::vector<size_t> base(static_cast<size_t>(np) + 1, 0);
  for (int r = 0; r < np; ++r) base[static_cast<size_t>(r) + 1] = base[static_cast<size_t>(r)] + 2 * job.ranks[static_cast<size_t>(r)].calls.size();
  const size_t V = base.back();
  auto B = [&](int r, uint32_t c) { return base[static_cast<size_t>(r)] + 2 * c; };
  std::vector<std::vector<size_t>> deps_of(V);  // end vertex -> begin vertices it waits for
  std::vector<int64_t> d(V / 2 + 1, 0), ready0(V / 2 + 1, 0);
  std::vector<uint32_t> pollv(V / 2 + 1, kNone), lastv(V / 2 + 1, kNone);
  for (int r = 0; r < np; ++r) {
    const Rank& R = job.ranks[static_cast<size_t>(r)];
    for (uint32_t c = 0; c < R.calls.size(); ++c) {
      const Call& k = R.calls[c];
      const size_t e = B(r, c) + 1;
      int64_t mx = INT64_MIN;
      uint32_t mx_op = kNone;  // the op of the latest candidate (rule 5 looks at its polls)
      // A held eager send's candidates (Op::held) wait here until the winner is known: the
      // MPI's choice to hold it shows only in the measured run, where such a candidate bound
      // if it was the latest and the partner won over the own begin (or the wait start).
      std::vector<std::pair<CallRef, int64_t>> held;
      bool mx_progress = false;  // the latest is a progress candidate (rule 4: rule 5's loops are tighter)
      int64_t fx = INT64_MIN;  // the latest candidate that is no progress candidate, and its op
      uint32_t fx_op = kNone;
      auto add = [&](const CallRef& ref, bool filter, uint32_t op, bool is_held = false, bool progress = false) {
        if (!ref.valid()) return;
        const int64_t b = job.ranks[static_cast<size_t>(ref.rank)].calls[ref.call].b;
        if (filter && b >= k.e) return;
        if (is_held) held.push_back({ref, b});
        else deps_of[e].push_back(B(ref.rank, ref.call));
        if (b > mx) mx = b, mx_op = op, mx_progress = progress;
        if (!progress && b > fx) fx = b, fx_op = op;
      };
      if (c == R.init)
        for (int o = 0; o < np; ++o)
          if (job.ranks[static_cast<size_t>(o)].init != kNone && o != r)
            add({o, job.ranks[static_cast<size_t>(o)].init}, false, kNone);
      for (uint32_t op : R.done_at[c]) {
        const Op& o = R.ops[op];
        // Rule 4's progress candidate: kept only where it bound in the measured run (held-like).
        add(progress_candidate(job, r, o), true, op, true, true);
        if (o.kind == OpKind::Coll && (o.incomplete || o.no_data || o.unsync || o.beyond)) {
          // docs/what-if.md, Limits: the members that did not record the instance cannot be
          // re-timed, so the latest member need not be found anew; the measured latest member
          // (the member itself included, except for one-to-all and neighbourhood patterns
          // whose set never holds it) stays the only dependency, none when it is the member.
          const bool own = o.beyond || (o.pattern != cpath::Pattern::Neighbor && o.pattern != cpath::Pattern::OneToAll);
          CallRef best;
          int64_t bb = 0;
          // A member that moves no data waited at most for those that began before it ended.
          auto consider = [&](const CallRef& x) {
            if (!x.valid()) return;
            const int64_t b = job.ranks[static_cast<size_t>(x.rank)].calls[x.call].b;
            if ((o.no_data || o.unsync || o.beyond) && b >= k.e) return;
            if (!best.valid() || b > bb || (b == bb && (x.rank < best.rank || (x.rank == best.rank && x.call < best.call)))) best = x, bb = b;
          };
          if (own) consider({r, o.post});
          for (const CallRef& ref : o.cands) consider(ref);
          if (best.valid() && best.rank != r) add(best, false, op);
          continue;
        }
        for (const CallRef& ref : o.cands) add(ref, o.kind != OpKind::Coll, op, o.held);
      }
      // Rule 5 (docs/pag-rules.md): the first poll p of the latest candidate's op starts the
      // wait; the thread is then ready at p plus its own work after the last poll q before
      // the candidate began (the loop's earlier work was waiting). A candidate that began after
      // k.b wins whatever the wait start: the re-timing keeps k.b then (as the product's).
      int64_t ready = k.b;
      int64_t win = mx;  // the begin of the candidate the end waits for
      if (mx != INT64_MIN && mx <= k.b) {
        uint32_t q = kNone;
        uint32_t p = wait_poll(R, mx_op, c, mx, &q, mx_progress);
        // A loop that did not wait for a progress candidate may have waited for the latest
        // other one (pag_walk.cpp's end_edge).
        if (p == kNone && mx_progress && fx != INT64_MIN) {
          p = wait_poll(R, fx_op, c, fx, &q, false);
          if (p != kNone) win = fx;
        }
        if (p != kNone) {
          pollv[e / 2] = p;
          lastv[e / 2] = q;
          ready = R.calls[p].b + (k.work_before - R.calls[q].work_before);
        }
      }
      ready0[e / 2] = ready;
      d[e / 2] = k.e - std::max(ready, win);
      // A candidate wins when it began after the call's begin, or after the wait start of a
      // polling loop (which rule 5 gives only for a candidate that began before the begin).
      const bool partner_wins = mx != INT64_MIN && (mx > k.b || pollv[e / 2] != kNone);
      for (const auto& [ref, b] : held)
        if (partner_wins && b == win) deps_of[e].push_back(B(ref.rank, ref.call));
    }
  }
  // Kahn's order over all vertices.
  std::vector<uint32_t> indeg(V, 0);
  std::vector<std::vector<size_t>> users(V);
  for (int r = 0; r < np; ++r) {
    const Rank& R = job.ranks[static_cast<size_t>(r)];
    for (uint32_t c = 0; c < R.calls.size(); ++c) {
      const size_t b = B(r, c), e = b + 1;
      if (R.calls[c].from != kNone) users[B(r, R.calls[c].from) + 1].push_back(b), ++indeg[b];
      users[b].push_back(e), ++indeg[e];
      for (size_t x : deps_of[e]) users[x].push_back(e), ++indeg[e];
      if (pollv[e / 2] != kNone) users[B(r, pollv[e / 2])].push_back(e), ++indeg[e];
    }
  }
  std::vector<int> rank_of(V / 2 + 1, 0);
  for (int r = 0; r < np; ++r)
    for (size_t v = base[static_cast<size_t>(r)]; v < base[static_cast<size_t>(r) + 1]; ++v) rank_of[v / 2] = r;
  std::vector<size_t> order, work;
  for (size_t v = 0; v < V; ++v)
    if (!indeg[v]) work.push_back(v);
  while (!work.empty()) {
    const size_t v = work.back();
    work.pop_back();
    order.push_back(v);
    for (size_t u : users[v])
      if (--indeg[u] == 0) work.push_back(u);
  }
  if (order.size() != V) {
    std::fprintf(stderr, "cpath-ref: the dependencies have a cycle; no re-timing\n");
    return 1;
  }
  auto site = [&](int r, uint32_t c) {
    const cpath::Event* e = job.ranks[static_cast<size_t>(r)].calls[c].ev;
    char b[64];
    std::snprintf(b, sizeof b, "%u:%" PRIx64, static_cast<unsigned>(e->call), e->callsite);
    return std::string(b);
  };
  for (size_t s = 0; s < S; ++s) {
    const Scen& x = sc[s];
    std::vector<int64_t> t(V, 0), cbs(V / 2 + 1, 0);  // new times; scaled compute along the thread
    std::vector<size_t> edge(V, 0);  // end vertex -> the begin vertex that set its new time
    auto factor = [&](int r, uint32_t c, bool mpi) {
      const auto& tab = mpi ? x.m[static_cast<size_t>(r)] : x.c[static_cast<size_t>(r)];
      auto it = tab.find(c);
      double a = it == tab.end() ? 1.0 : it->second, b = 1.0;
      size_t ri = 0;
      const cpath::CallKind kind = job.ranks[static_cast<size_t>(r)].calls[c].info().kind;
      for (const auto& term : x.terms) {
        if (term.first == 'r') {
          if (!mpi && x.term_rank[ri] == r) b *= term.second;
          ++ri;
        } else if (term.first == 'b' && !mpi) {
          b *= comp[static_cast<size_t>(r)] > 0 ? mean / static_cast<double>(comp[static_cast<size_t>(r)]) : 1.0;
        } else if (term.first == 'n' && mpi && kind != cpath::CallKind::Init && kind != cpath::CallKind::Finalize) {
          b *= term.second;
        }
      }
      return a * b;
    };
    double sf = 1.0;
    for (const auto& term : x.terms)
      if (term.first == 's') sf *= term.second;
    for (size_t v : order) {
      const int r = rank_of[v / 2];
      const Rank& R = job.ranks[static_cast<size_t>(r)];
      const uint32_t c = static_cast<uint32_t>((v - base[static_cast<size_t>(r)]) / 2);
      const Call& k = R.calls[c];
      if (v % 2 == 0) {
        if (k.from == kNone) {
          t[v] = job.job_begin + scale(k.b - job.job_begin, sf);
        } else {
          const double f = factor(r, c, false);
          const int64_t gap = scale(k.b - R.calls[k.from].e, f);
          t[v] = t[B(r, k.from) + 1] + gap;
          // The thread's work as rule 5 counts it (pag_walk.cpp's thread_work), for the ready
          // time after a polling loop.
          const int64_t work = k.prev == k.from ? k.work_before - R.calls[k.prev].work_before : k.b - R.calls[k.from].e;
          cbs[v / 2] = cbs[B(r, k.from) / 2] + scale(work, f);
        }
        continue;
      }
      int64_t ready = t[v - 1];
      if (pollv[v / 2] != kNone) ready = t[B(r, pollv[v / 2])] + (cbs[v / 2] - cbs[B(r, lastv[v / 2]) / 2]);
      int64_t mx = INT64_MIN;
      size_t win = v - 1;  // vertices are numbered by rank, then call: the lowest wins ties
      for (size_t u : deps_of[v])
        if (t[u] > mx || (t[u] == mx && u < win)) mx = t[u], win = u;
      // The own begin binds, or, after a polling loop that ended before the call's new begin,
      // the loop's first poll (the thread was ready from there).
      edge[v] = mx > ready ? win : pollv[v / 2] != kNone && ready < t[v - 1] ? B(r, pollv[v / 2]) : v - 1;
      t[v] = std::max(ready, mx) + scale(d[v / 2], factor(r, c, true));
    }
    int64_t end = INT64_MIN;
    for (int r = 0; r < np; ++r) {
      const Rank& R = job.ranks[static_cast<size_t>(r)];
      if (R.finalize != kNone) end = std::max(end, t[B(r, R.finalize)]);
    }
    if (pop) {
      ends.push_back(end);
      continue;
    }
    std::printf("result %zu %" PRId64 " %" PRId64 "\n", s, end, end - job.job_begin);
    // The new critical path, from the latest new MPI_Finalize entry (ties: lowest rank).
    int rk = -1;
    for (int r = 0; r < np; ++r) {
      const Rank& R = job.ranks[static_cast<size_t>(r)];
      if (R.finalize != kNone && (rk < 0 || t[B(r, R.finalize)] > t[B(rk, job.ranks[static_cast<size_t>(rk)].finalize)])) rk = r;
    }
    if (rk < 0) continue;
    std::map<std::pair<int, std::string>, int64_t> raw;
    long long changes = 0;
    uint32_t c = job.ranks[static_cast<size_t>(rk)].finalize;
    for (size_t steps = 0; steps < 2 * V + 2; ++steps) {
      const Rank& R = job.ranks[static_cast<size_t>(rk)];
      const uint32_t p = R.calls[c].from;
      const int64_t b = t[B(rk, c)];
      if (p == kNone) {
        if (b > job.job_begin) raw[{rk, "startup " + site(rk, c) + " -"}] += b - job.job_begin;
        break;
      }
      const int64_t e = t[B(rk, p) + 1];
      raw[{rk, "compute " + site(rk, c) + " " + site(rk, p)}] += b - std::min(e, b);
      const size_t to = edge[B(rk, p) + 1];
      // An edge that began before p did (a polling loop): the thread's calls and work since,
      // up to p's new begin or, where the re-timed loop ended before that, p's new end.
      const int64_t top = std::max(t[to], std::min(t[B(rk, p)], e));
      raw[{rk, "mpi " + site(rk, p) + " -"}] += e - top;
      passed_pieces(
          R, p, t[to], top, [&](uint32_t k) { return t[B(rk, k)]; }, [&](uint32_t k) { return t[B(rk, k) + 1]; },
          [&](const char* kind, int64_t pb, int64_t pe, uint32_t call, uint32_t prev) {
            const std::string key = kind[0] == 'm' ? "mpi " + site(rk, call) + " -"
                                                   : "compute " + site(rk, call) + " " + (prev == kNone ? "-" : site(rk, prev));
            raw[{rk, key}] += pe - pb;
          });
      const int nr = rank_of[to / 2];
      if (nr != rk) ++changes;
      rk = nr;
      c = static_cast<uint32_t>((to - base[static_cast<size_t>(rk)]) / 2);
    }
    std::printf("path_rank_changes %zu %lld\n", s, changes);
    for (const auto& [k, ns] : raw) std::printf("path %zu %d %s %" PRId64 "\n", s, k.first, k.second.c_str(), ns);
  }
  if (pop) print_pop(job, ends);
  return 0;
}

}  // namespace cpref
