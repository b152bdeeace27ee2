// The distributed part of the wait-state analysis: sums over ranks, the worst instances with
// both sides' call sites, the root causes on the delaying ranks, the POP factors. Costs: one
// pass over each rank's calls, one sparse exchange (one 12-byte item per wait instance, to the
// rank waited for), a few reductions and two small gathers.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "byte_io.h"
#include "call_info.h"
#include "report.h"
#include "site_names.h"
#include "sorted_runs.h"
#include "sparse_exchange.h"
#include "tree_reduce.h"
#include "wait_states.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

constexpr int kWorst = 3;    // worst instances kept per pattern
constexpr int kWorstFields = 8;  // pattern, lost, rank, event, partner rank, partner event, on path, deferred

std::string call_name(const Timeline& tl, uint32_t ev) { return call_info(tl.ev[ev].e.call).name; }

struct CauseKey {
  uint16_t call_prev, call;
  uint64_t site_prev, site;
  bool operator<(const CauseKey& o) const {
    return std::tie(site, site_prev, call, call_prev) < std::tie(o.site, o.site_prev, o.call, o.call_prev);
  }
};

// Root causes on this rank, from the waits it caused: rows keyed by description, values
// {short ns, long ns, delay ns, instances, ranks waiting}. The short/long split comes from
// delay_costs, the code the differential test (cpath-ref --waits) checks, so what is reported
// is what was checked.
StringTable cause_rows(const Timeline& tl, const ThreadWaits& waits, std::vector<CausedWait> caused, SiteNames& names, int me,
                       size_t top) {
  if (!std::is_sorted(caused.begin(), caused.end(), caused_before)) std::sort(caused.begin(), caused.end(), caused_before);
  struct Acc {
    double s = 0, l = 0, delay = 0, n = 0;
    std::vector<int32_t> ranks;
    uint32_t example = 0, start = kNoEvent;
  };
  std::map<CauseKey, Acc> acc;
  size_t i = 0;
  for_each_delay_cost(tl, waits, caused, [&](const DelayCost& d) {
    const uint32_t ev = d.event;
    const uint32_t p = d.start;
    CauseKey k{p == kNoEvent ? uint16_t(0xffff) : tl.ev[p].e.call, tl.ev[ev].e.call,
               p == kNoEvent ? 0 : tl.callsite(p), tl.callsite(ev)};
    Acc& a = acc[k];
    a.example = ev;
    a.start = p;
    a.delay += p == kNoEvent ? 0.0 : static_cast<double>(d.interval);
    a.s += static_cast<double>(d.short_ns);
    a.l += static_cast<double>(d.long_ns);
    a.n += d.instances;
    // The waiting ranks of the same waits delay_costs counted (both lists sorted by event).
    while (i < caused.size() && caused[i].event < ev) ++i;
    for (; i < caused.size() && caused[i].event == ev; ++i)
      if (caused[i].lost > 0) a.ranks.push_back(caused[i].waiting_rank);
  });
  std::vector<std::pair<double, const Acc*>> order;
  for (auto& [k, a] : acc) {
    std::sort(a.ranks.begin(), a.ranks.end());
    a.ranks.erase(std::unique(a.ranks.begin(), a.ranks.end()), a.ranks.end());
    order.emplace_back(a.s + a.l, &a);
  }
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (order.size() > top) order.resize(top);
  StringTable rows;
  for (const auto& [total, a] : order) {
    const uint32_t ev = a->example, p = a->start;
    std::string d = p == kNoEvent ? "start-up before " : "compute between " + call_name(tl, p) + " at " +
                                                           names.name(tl.callsite(p)) + " and ";
    d += call_name(tl, ev) + " at " + names.name(tl.callsite(ev)) + " on rank " + std::to_string(me);
    rows[d] = {a->s, a->l, a->delay, a->n, static_cast<double>(a->ranks.size()), static_cast<double>(me)};
  }
  return rows;
}

// Pattern names without blanks, for the line format the differential tests read.
std::string dump_name(WaitPattern p) {
  std::string s = wait_pattern_info(p).name;
  std::replace(s.begin(), s.end(), ' ', '_');
  return s;
}

void write_waits_file(const std::string& path, const std::vector<WaitInstance>& inst, const std::vector<DelayCost>& costs) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  // W: waits for a partner; C: time inside a call after its partners came (completion.cpp,
  // close_send_recv.cpp), the same fields.
  // W lines end with the send's call (send_mode_split.cpp), "-" where the pattern has none.
  for (const WaitInstance& w : inst) {
    std::fprintf(f, "%c %u %s %d %u %" PRId64 " %" PRId64 " %d", waits_for_partner(w.pattern) ? 'W' : 'C', w.event,
                 dump_name(w.pattern).c_str(), w.partner_rank,
                 w.partner_event, w.wait_from, w.partner_begin, w.on_path ? 1 : 0);
    if (waits_for_partner(w.pattern)) std::fprintf(f, " %s", w.send_call ? call_info(w.send_call).name : "-");
    std::fputc('\n', f);
  }
  for (const DelayCost& d : costs)
    std::fprintf(f, "R %u %" PRId64 " %" PRId64 " %u\n", d.event, d.short_ns, d.long_ns, d.instances);
  std::fclose(f);
}

}  // namespace

void analyse_wait_states(const RankPag& pag, const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                         const WalkResult& walk,
                         SiteNames& names, double my_path_compute_ns, MPI_Comm comm, const std::string& waits_file,
                         Report* rep) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  std::vector<WaitInstance> inst = find_wait_states(pag, tl, ops, partners, walk, me);
  mark_wrong_order(tl, ops, partners, &inst);
  mark_misarrangement(tl, ops, partners, &inst);
  attach_send_calls(tl, ops, partners, &inst);
  const std::vector<uint32_t> path_calls = path_mpi_calls(walk);
  find_completions(tl, ops, partners, path_calls, &inst);
  find_close_send_recv(tl, ops, path_calls, me, &inst);

  // Totals per pattern: lost, on path, instances.
  std::vector<double> sums(3 * kNumWaitPatterns, 0.0), total(3 * kNumWaitPatterns, 0.0);
  for (const WaitInstance& w : inst) {
    const int p = static_cast<int>(w.pattern);
    sums[3 * p] += static_cast<double>(w.lost());
    sums[3 * p + 1] += w.on_path ? static_cast<double>(w.lost()) : 0.0;
    sums[3 * p + 2] += 1;
  }
  tool_reduce(sums.data(), total.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  // The point-to-point rows by send call: "pattern index\x1fcall" -> {lost ns, instances}.
  StringTable by_mode;
  for (const WaitInstance& w : inst)
    if (w.send_call) {
      std::vector<double>& v = by_mode[std::to_string(static_cast<int>(w.pattern)) + "\x1f" + call_info(w.send_call).name];
      v.resize(2, 0.0);
      v[0] += static_cast<double>(w.lost());
      v[1] += 1;
    }
  reduce_table_to_root(&by_mode, comm);

  // Root causes: each wait goes to the rank waited for, which knows the compute before the call.
  std::vector<ByteWriter> w(static_cast<size_t>(np));
  for (const WaitInstance& x : inst)
    if (waits_for_partner(x.pattern) && x.partner_rank >= 0 && x.partner_rank < np) {
      w[static_cast<size_t>(x.partner_rank)].put<uint32_t>(x.partner_event);
      w[static_cast<size_t>(x.partner_rank)].put<int64_t>(x.lost());
    }
  std::vector<std::vector<uint8_t>> out(static_cast<size_t>(np));
  for (int p = 0; p < np; ++p) out[static_cast<size_t>(p)].swap(w[static_cast<size_t>(p)].bytes());
  std::vector<std::vector<uint8_t>> in = exchange_bytes(out, comm);
  std::vector<std::vector<uint8_t>>().swap(out);
  std::vector<CausedWait> caused;
  std::vector<size_t> runs(1, 0);
  for (int p = 0; p < np; ++p) {
    ByteReader r(in[static_cast<size_t>(p)].data(), in[static_cast<size_t>(p)].size());
    uint32_t ev = 0;
    int64_t lost = 0;
    while (r.left() > 0 && r.get(ev) && r.get(lost))
      if (ev < tl.ev.size()) caused.push_back({lost, ev, p});
    runs.push_back(caused.size());
    std::vector<uint8_t>().swap(in[static_cast<size_t>(p)]);
  }
  // By event, as delay_costs and cause_rows read them: each rank sent its waits in its own
  // order, which mostly follows the events waited for here, so the runs are merged.
  sort_runs(caused.begin(), runs, caused_before);
  // The intervals end where this rank met others; long-term causes are its own waits, passed on.
  const ThreadWaits own_waits(tl, ops, inst, caused);
  if (!waits_file.empty()) write_waits_file(waits_file, inst, delay_costs(tl, own_waits, caused));
  StringTable causes = cause_rows(tl, own_waits, std::move(caused), names, me, rep->top);
  reduce_table_to_root(&causes, comm);

  // The worst instances: each rank's top few per pattern to rank 0.
  std::vector<double> mine(static_cast<size_t>(kWorst * kNumWaitPatterns * kWorstFields), -1.0);
  for (int p = 0; p < kNumWaitPatterns; ++p) {
    std::vector<const WaitInstance*> v;
    for (const WaitInstance& x : inst)
      if (static_cast<int>(x.pattern) == p) v.push_back(&x);
    const size_t k = std::min<size_t>(kWorst, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<long>(k), v.end(),
                      [](const WaitInstance* a, const WaitInstance* b) { return a->lost() > b->lost(); });
    for (size_t j = 0; j < k; ++j) {
      double* f = &mine[(static_cast<size_t>(p) * kWorst + j) * kWorstFields];
      f[0] = p;
      f[1] = static_cast<double>(v[j]->lost());
      f[2] = me;
      f[3] = v[j]->event;
      f[4] = v[j]->partner_rank;
      f[5] = v[j]->partner_event;
      f[6] = v[j]->on_path;
      // Completed by a later call than the one that posted it (MPI_Wait after MPI_Irecv/Isend,
      // a non-blocking collective): that call could have come this much later without waiting.
      const uint32_t op = v[j]->op;
      f[7] = waits_for_partner(v[j]->pattern) && op != kNoEvent && op < ops.ops.size() && ops.ops[op].post != v[j]->event;
    }
  }
  std::vector<double> all(me == 0 ? mine.size() * static_cast<size_t>(np) : 0);
  tool_gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
              MPI_DOUBLE, 0, comm);
  std::vector<std::vector<const double*>> worst(kNumWaitPatterns);
  std::vector<std::string> wanted;  // "rank event" of every call to name
  if (me == 0) {
    for (size_t i = 0; i + kWorstFields <= all.size(); i += kWorstFields)
      if (all[i] >= 0) worst[static_cast<size_t>(all[i])].push_back(&all[i]);
    for (auto& v : worst) {
      std::sort(v.begin(), v.end(), [](const double* a, const double* b) {
        return a[1] != b[1] ? a[1] > b[1] : a[2] != b[2] ? a[2] < b[2] : a[3] < b[3];
      });
      if (v.size() > kWorst) v.resize(kWorst);
      for (const double* f : v) {
        wanted.push_back(std::to_string(static_cast<long long>(f[2])) + " " + std::to_string(static_cast<long long>(f[3])));
        wanted.push_back(std::to_string(static_cast<long long>(f[4])) + " " + std::to_string(static_cast<long long>(f[5])));
      }
    }
  }
  broadcast_strings(&wanted, comm);
  StringTable named;  // "index\x1fcall\x1fsite"
  for (size_t i = 0; i < wanted.size(); ++i) {
    int r = -1;
    unsigned ev = 0;
    if (std::sscanf(wanted[i].c_str(), "%d %u", &r, &ev) == 2 && r == me && ev < tl.ev.size())
      named[std::to_string(i) + "\x1f" + call_name(tl, ev) + "\x1f" + names.name(tl.callsite(ev))] = {1.0};
  }
  reduce_table_to_root(&named, comm);

  // POP factors.
  const double useful = static_cast<double>(useful_compute_ns(tl, pag)) * 1e-9;
  // The POP window: from the first MPI_Init exit to the latest MPI_Finalize entry (the Init
  // record ends after libcpath's own start-up work).
  const uint32_t ie = pag.init_event();
  double first_init_end = ie == kNoEvent ? 1e300 : static_cast<double>(tl.ev[ie].end), first_all = 0;
  tool_reduce(&first_init_end, &first_all, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
  double useful_max = 0, useful_sum = 0, path_compute_ns = 0;
  tool_reduce(&my_path_compute_ns, &path_compute_ns, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  const double path_compute_s = path_compute_ns * 1e-9;
  tool_reduce(&useful, &useful_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  tool_reduce(&useful, &useful_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (me != 0) return;

  WaitStatesSection& sec = rep->waits;
  sec.computed = true;
  const double elapsed = static_cast<double>(walk.finalize_begin - walk.job_begin) * 1e-9;
  std::vector<std::pair<std::string, std::string>> call_site(wanted.size(), {"?", "?"});
  for (const auto& [k, v] : named) {
    const size_t a = k.find('\x1f'), b = k.find('\x1f', a + 1);
    const size_t i = static_cast<size_t>(std::atoll(k.substr(0, a).c_str()));
    if (i < call_site.size()) call_site[i] = {k.substr(a + 1, b - a - 1), k.substr(b + 1)};
  }
  size_t wi = 0;
  for (int p = 0; p < kNumWaitPatterns; ++p) {
    const double n = total[3 * static_cast<size_t>(p) + 2];
    if (n <= 0) continue;
    WaitStateRow row;
    const WaitPatternInfo& info = wait_pattern_info(static_cast<WaitPattern>(p));
    row.pattern = info.name;
    row.hint = info.hint;
    row.lost_s = total[3 * static_cast<size_t>(p)] * 1e-9;
    row.on_path_s = total[3 * static_cast<size_t>(p) + 1] * 1e-9;
    row.instances = static_cast<uint64_t>(n);
    row.share = elapsed > 0 ? row.lost_s / (elapsed * np) : 0;
    row.listed = row.share >= sec.threshold_share;
    for (const double* f : worst[static_cast<size_t>(p)]) {
      WaitWorst x;
      x.lost_s = f[1] * 1e-9;
      x.waiting_rank = static_cast<int>(f[2]);
      x.partner_rank = static_cast<int>(f[4]);
      x.on_path = f[6] > 0;
      x.optimal_distance_s = f[7] > 0 ? x.lost_s : -1;
      x.call = call_site[wi].first;
      x.site = call_site[wi].second;
      x.partner_call = call_site[wi + 1].first;
      x.partner_site = call_site[wi + 1].second;
      wi += 2;
      row.worst.push_back(x);
    }
    sec.patterns.push_back(row);
  }
  std::sort(sec.patterns.begin(), sec.patterns.end(),
            [](const WaitStateRow& a, const WaitStateRow& b) { return a.lost_s > b.lost_s; });
  for (const auto& [k, v] : by_mode) {
    const size_t a = k.find('\x1f');
    if (a == std::string::npos || v.size() < 2) continue;
    WaitModeRow m;
    m.pattern = wait_pattern_info(static_cast<WaitPattern>(std::atoi(k.substr(0, a).c_str()))).name;
    m.send_mode = k.substr(a + 1);
    m.lost_s = v[0] * 1e-9;
    m.instances = static_cast<uint64_t>(v[1]);
    sec.by_send_mode.push_back(m);
  }
  std::sort(sec.by_send_mode.begin(), sec.by_send_mode.end(), [](const WaitModeRow& a, const WaitModeRow& b) {
    return a.pattern != b.pattern ? a.pattern < b.pattern : a.lost_s > b.lost_s;
  });
  for (const auto& [d, v] : causes) {
    if (v.size() < 6) continue;
    for (int lt = 0; lt < 2; ++lt) {
      if (v[static_cast<size_t>(lt)] <= 0) continue;
      RootCauseRow c;
      c.description = d;
      c.rank = static_cast<int>(v[5]);
      c.delay_s = v[2] * 1e-9;
      c.waiting_caused_s = v[static_cast<size_t>(lt)] * 1e-9;
      c.instances = static_cast<uint64_t>(v[3]);
      c.ranks_waiting = static_cast<int>(v[4]);
      c.long_term = lt == 1;
      sec.root_causes.push_back(c);
    }
  }
  std::sort(sec.root_causes.begin(), sec.root_causes.end(),
            [](const RootCauseRow& a, const RootCauseRow& b) { return a.waiting_caused_s > b.waiting_caused_s; });
  if (sec.root_causes.size() > rep->top) sec.root_causes.resize(rep->top);

  EfficiencyRow& e = sec.efficiency;
  const double window = first_all < 1e299 ? (static_cast<double>(walk.finalize_begin) - first_all) * 1e-9 : 0;
  if (window > 0 && useful_max > 0) {
    e.known = true;
    e.elapsed_s = window;
    e.useful_max_s = useful_max;
    e.useful_mean_s = useful_sum / np;
    // The run with zero-cost transfers lasts at least as long as the compute on the measured
    // critical path and as the busiest rank's compute (each is a chain of dependent work).
    e.ideal_s = std::min(window, std::max(useful_max, path_compute_s));
    e.ideal_source =
        "estimated as the larger of the compute on the measured critical path and the busiest rank's compute (no "
        "zero-cost re-timing of the PAG yet)";
    e.load_balance = e.useful_mean_s / useful_max;
    // A rank's useful time cannot exceed the window but for clock noise at its edges.
    const double um = std::min(useful_max, window);
    e.communication = um / window;
    e.parallel = e.load_balance * e.communication;
    e.serialisation = um / e.ideal_s;
    e.transfer = e.ideal_s / window;
  }
}

}  // namespace cpath
