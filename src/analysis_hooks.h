// The seam between collection (src/) and the finalize-time analysis (replay/): the runtime
// hands over one rank's decoded trace; the analysis runs collectively and writes the report.
#pragma once
#include <cstdint>
#include <string>

#include "memory_budget.h"
#include "rank_trace.h"

namespace cpath {

// Sampler control, implemented with the analysis (replay/pmu_attribution.cpp).
void sampling_start();
void sampling_stop();

// Collective over the tool communicator. `t_start_ns` is when finalize processing began
// (CLOCK_MONOTONIC_RAW), for the post-processing time figure. `budget` (the same on every
// rank) says what fits in memory; with !budget.analyse the trace was not decoded and
// `events_recorded` is this rank's count.
void analyse_and_report(RankTrace& trace, const std::string& out_dir, int64_t t_start_ns, const MemoryBudget& budget,
                        uint64_t events_recorded);

}  // namespace cpath
