// What libcpath does inside MPI_Init (after the application's PMPI_Init) and inside
// MPI_Finalize (before PMPI_Finalize): clock measurements, trace collection into a RankTrace,
// communicator unification, trace dump, analysis and report.
#pragma once
#include "clock.h"

namespace cpath {

void finalize_pipeline_at_init();
void run_finalize_pipeline();
// Ticks -> CLOCK_MONOTONIC_RAW from MPI_Init to now, with the test distortion (skew_ns=).
TickModel current_tick_model();

}  // namespace cpath
