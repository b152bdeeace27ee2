// Inclusive time per function from the samples' call chains (option callchain=1): every
// function on a sample's chain is charged the sample once (recursion counted once), over all
// samples and over those that fall on the critical path: the view of `perf report --children`
// or HPCToolkit's inclusive metric, next to the flat (self) hotspot tables.
#pragma once
#include <cstdint>
#include <vector>

#include "pmu/hotspots.h"

namespace cpath {

// `iv` sorted by t0, non-overlapping (the path on this rank); `chains` as
// pmu::sampler_callchains(). Results go to out->all (every sample) and out->inside (on the path).
void inclusive_hotspots(const std::vector<pmu::Sample>& samples, const std::vector<uint64_t>& chains,
                        const std::vector<pmu::TimeInterval>& iv, const pmu::FunctionResolver& resolve,
                        pmu::HotspotTables* out);

}  // namespace cpath
