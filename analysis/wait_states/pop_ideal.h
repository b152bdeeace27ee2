// The POP model's ideal run (zero-cost transfers) for the serialisation and transfer
// efficiencies, taken from the what-if re-timing's "all MPI time zero" scenario when it ran
// (docs/report.md "POP efficiency").
#pragma once
#include "report.h"

namespace cpath {

// Rank 0, after analyse_what_if: replaces the lower-bound estimate of the ideal run in
// `e` by the re-timed one and recomputes serialisation and transfer. Leaves `e` as it was
// when the re-timing has no such scenario (whatif=0 or whatif_defaults=0).
void apply_retimed_ideal(const WhatIfReport& w, EfficiencyRow* e);

}  // namespace cpath
