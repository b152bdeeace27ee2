#include "startup.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "call_info.h"
#include "load_traces.h"

namespace cpath {
namespace ref {

int startup_main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cpath-ref --startup DIR\n");
    return 2;
  }
  std::vector<RankTrace> ranks;
  if (!load_traces(argv[1], &ranks)) return 2;
  std::printf("rank,preinit_s,init_s,finalize_s\n");
  for (const RankTrace& t : ranks) {
    // MPI_Init and MPI_Finalize are called once, on one thread: the first Init and the last
    // Finalize record of any thread.
    const Event* init = nullptr;
    const Event* fin = nullptr;
    for (const DecodedThread& d : t.threads)
      for (const Event& e : d.events) {
        const CallKind k = call_info(e.call).kind;
        if (k == CallKind::Init && (!init || e.t_begin < init->t_begin)) init = &e;
        if (k == CallKind::Finalize && (!fin || e.t_begin > fin->t_begin)) fin = &e;
      }
    const std::string pre = t.meta_value("preinit_ns"), start = t.meta_value("analysis_start_ns");
    const long long preinit = pre.empty() ? -1 : std::atoll(pre.c_str());
    // Less libcpath's own work at the end of the MPI_Init record.
    const std::string tool = t.meta_value("init_tool_ns");
    const int64_t init_ns =
        init ? std::max<int64_t>(0, t.ticks.to_ns(init->t_end) - t.ticks.to_ns(init->t_begin) - (tool.empty() ? 0 : std::atoll(tool.c_str())))
             : 0;
    int64_t fin_ns = 0;
    if (fin && !start.empty()) fin_ns = t.ticks.inject(std::atoll(start.c_str())) - t.ticks.to_ns(fin->t_begin);
    if (fin_ns < 0) fin_ns = 0;
    std::printf("%d,", t.rank);
    if (preinit >= 0) std::printf("%.9f", static_cast<double>(preinit) * 1e-9);
    std::printf(",%.9f,%.9f\n", static_cast<double>(init_ns) * 1e-9, static_cast<double>(fin_ns) * 1e-9);
  }
  return 0;
}

}  // namespace ref
}  // namespace cpath
