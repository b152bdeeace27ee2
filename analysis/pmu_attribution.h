// Places each rank's PMU samples on the time intervals where the critical path ran on that
// rank, aggregates them by (function, module), and merges the tables across ranks with a
// reduction tree (seed 000: "PMU samples aggregation on critical path").
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "clock_repair.h"
#include "critical_path_walk.h"
#include "rank_trace.h"
#include "site_names.h"
#include "report.h"
#include "runtime.h"
#include "timeline.h"

namespace cpath {

// Starts the sampler at MPI_Init when option sample=1; stops it (before the analysis runs).
void pmu_start(const Runtime& rt);
void pmu_stop();

struct PmuResult {
  bool enabled = false;
  Report partial;  // pmu_* and hot_* fields, complete on rank 0
  void fill(Report* r) const;
};

// Every sample's function, for the what-if analysis (analysis/what_if.h): time on the
// timeline's clock and an index into `names`.
struct SampleFunctions {
  std::vector<int64_t> time;
  std::vector<uint32_t> fn;
  std::vector<std::string> names;
};

// Collective over comm. `clock` (optional) moves samples with the clock-condition repair;
// `names` (optional) lends its symboliser, so the process's modules are read once.
PmuResult attribute_samples(const WalkResult& walk, const Timeline& tl, const RankTrace& trace, const Runtime& rt,
                            MPI_Comm comm, const ClockRepairResult* clock = nullptr, SiteNames* names = nullptr,
                            SampleFunctions* functions = nullptr);

}  // namespace cpath
