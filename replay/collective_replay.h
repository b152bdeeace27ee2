// Collective replay: for every collective instance, which member's entry each rank waits for
// (the latest entry, the root's, or the latest among lower ranks for scans). Communicators
// are rebuilt from the unified table (freed ones included), one per distinct group; all
// instances of all communicators with that group are reduced in a few batched
// MPI_Allreduce/MPI_Scan calls with a user-defined operation on the rebuilt communicator.
// MPI_Init is treated as a collective on MPI_COMM_WORLD.
#pragma once
#include <mpi.h>

#include <vector>

#include "ops.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

// Fills partners for collective ops. `init_partner` receives the latest MPI_Init entry.
void replay_collectives(const Timeline& tl, const OpTable& ops, MPI_Comm world, std::vector<Partner>* partners,
                        Partner* init_partner, ReplayStats* stats);

// The reduction element, exposed for the unit tests of the combine rule.
struct CollAgg {
  int64_t max_begin;
  int32_t max_rank;
  uint32_t max_event;
  int64_t root_begin;
  int32_t root_rank;
  uint32_t root_event;
};
void coll_agg_combine(const CollAgg* in, CollAgg* inout, int n);

}  // namespace cpath
