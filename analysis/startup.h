// Start-up and shut-down per rank (issue 10, seed 004): process start to MPI_Init entry,
// MPI_Init itself, MPI_Finalize entry to the start of libcpath's analysis; which rank the
// others waited for at start-up, and how much of the critical path start-up takes.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "communication_report.h"
#include "path_profile.h"
#include "rank_trace.h"
#include "timeline.h"

namespace cpath {

// The figures one rank contributes (also what the sequential reference prints per rank).
struct RankStartup {
  int64_t preinit_ns = -1;  // -1: unknown
  int64_t init_ns = 0, finalize_ns = 0;
  int64_t init_begin = 0, init_end = 0, finalize_begin = 0;  // aligned clock
};
RankStartup rank_startup(const RankTrace& t, const Timeline& tl);

// Collective over `comm`; `hosts` (rank 0 only) are the ranks' processor names. Complete on
// rank 0.
StartupReport analyse_startup(const RankTrace& t, const Timeline& tl, const PathProfile& prof,
                              const std::vector<std::string>& hosts, MPI_Comm comm);

}  // namespace cpath
