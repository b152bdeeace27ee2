#include "pmu_attribution.h"

namespace cpath {

void pmu_start(const Runtime&) {}

void PmuResult::fill(Report* r) const {
  if (!enabled) return;
  r->pmu_enabled = true;
  r->pmu_source = partial.pmu_source;
  r->pmu_note = partial.pmu_note;
  r->pmu_events = partial.pmu_events;
  r->pmu_samples = partial.pmu_samples;
  r->pmu_lost = partial.pmu_lost;
  r->hot_all = partial.hot_all;
  r->hot_path = partial.hot_path;
  r->hot_path_compute = partial.hot_path_compute;
  r->hot_path_mpi = partial.hot_path_mpi;
}

PmuResult attribute_samples(const WalkResult&, const Timeline&, const RankTrace&, const Runtime&, MPI_Comm) {
  return PmuResult();
}

}  // namespace cpath
