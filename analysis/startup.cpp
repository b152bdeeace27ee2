#include "startup.h"

#include <algorithm>
#include <cstdlib>

#include "call_info.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

void min_median_max(std::vector<double> v, double out[3]) {
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  out[0] = v.front();
  out[1] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  out[2] = v.back();
}

}  // namespace

RankStartup rank_startup(const RankTrace& t, const Timeline& tl) {
  RankStartup r;
  const std::string pre = t.meta_value("preinit_ns");
  if (!pre.empty()) r.preinit_ns = std::atoll(pre.c_str());
  const TimelineEvent* init = nullptr;
  const TimelineEvent* fin = nullptr;
  for (const TimelineEvent& te : tl.ev) {
    const CallKind k = call_info(te.e.call).kind;
    if (k == CallKind::Init && !init) init = &te;
    if (k == CallKind::Finalize) fin = &te;
  }
  if (init) {
    r.init_begin = init->begin;
    r.init_end = init->end;
    // The record ends after libcpath's own start-up work (Runtime::init_tool_ns): the MPI
    // library's share is what start-up reports.
    const std::string tool = t.meta_value("init_tool_ns");
    r.init_ns = std::max<int64_t>(0, t.local_ns(tl.init_ticks.second) - t.local_ns(tl.init_ticks.first) -
                                         (tool.empty() ? 0 : std::atoll(tool.c_str())));
  }
  if (fin) {
    r.finalize_begin = fin->begin;
    const std::string start = t.meta_value("analysis_start_ns");
    if (!start.empty()) r.finalize_ns = std::max<int64_t>(0, t.ticks.inject(std::atoll(start.c_str())) - t.local_ns(tl.finalize_ticks.first));
  }
  return r;
}

StartupReport analyse_startup(const RankTrace& t, const Timeline& tl, const PathProfile& prof,
                              const std::vector<std::string>& hosts, MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  const RankStartup mine = rank_startup(t, tl);
  long long v[6] = {mine.preinit_ns, mine.init_ns, mine.finalize_ns, mine.init_begin, mine.init_end, mine.finalize_begin};
  std::vector<long long> all(me == 0 ? static_cast<size_t>(np) * 6 : 0);
  tool_gather(v, 6, MPI_LONG_LONG, all.data(), 6, MPI_LONG_LONG, 0, comm);
  double path = prof.startup_ns, path_sum = 0;
  for (unsigned c = 0; c < prof.call_ns.size(); ++c)
    if (call_info(c).kind == CallKind::Init) path += prof.call_ns[c];
  tool_reduce(&path, &path_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);

  StartupReport r;
  if (me != 0) return r;
  r.present = true;
  r.hosts = hosts;
  r.hosts.resize(static_cast<size_t>(np));
  std::vector<double> known_preinit;
  long long first_start = 0, last_init_end = 0, last_finalize = 0, last_init_begin = 0;
  for (int k = 0; k < np; ++k) {
    const long long* x = &all[static_cast<size_t>(k) * 6];
    r.preinit_s.push_back(x[0] >= 0 ? static_cast<double>(x[0]) * 1e-9 : -1.0);
    r.init_s.push_back(static_cast<double>(x[1]) * 1e-9);
    r.finalize_s.push_back(static_cast<double>(x[2]) * 1e-9);
    if (x[0] >= 0) known_preinit.push_back(r.preinit_s.back());
    else r.preinit_known = false;
    const long long start = x[3] - std::max(0LL, x[0]);
    if (k == 0 || start < first_start) first_start = start;
    if (k == 0 || x[4] > last_init_end) last_init_end = x[4];
    if (k == 0 || x[5] > last_finalize) last_finalize = x[5];
    if (k == 0 || x[3] > last_init_begin) {
      last_init_begin = x[3];
      r.last_init_rank = k;
    }
    if (x[0] >= 0 && (r.slowest_rank < 0 || r.preinit_s.back() > r.preinit_s[static_cast<size_t>(r.slowest_rank)]))
      r.slowest_rank = k;
  }
  // Without process start times, the rank the others waited for is the best answer.
  if (!r.preinit_known || r.slowest_rank < 0) r.slowest_rank = r.last_init_rank;
  r.slowest_host = r.hosts[static_cast<size_t>(r.slowest_rank)];
  min_median_max(known_preinit, r.preinit);
  min_median_max(r.init_s, r.init);
  min_median_max(r.finalize_s, r.finalize);
  r.startup_s = static_cast<double>(last_init_end - first_start) * 1e-9;
  r.run_s = static_cast<double>(last_finalize - first_start) * 1e-9;
  r.share_of_elapsed = r.run_s > 0 ? r.startup_s / r.run_s : 0;
  r.on_critical_path_s = path_sum * 1e-9;
  return r;
}

}  // namespace cpath
