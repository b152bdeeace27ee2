// The N-to-N family (Scalasca): Wait at Barrier (MPI_Barrier, MPI_Ibarrier) and Wait at NxN
// (every other collective in which each member waits for all: Allreduce, Allgather, Alltoall,
// Reduce_scatter, communicator creation, window and file collectives): a member waited for the
// last member to enter. Neighbourhood collectives wait for the last in-neighbour only (Wait at
// Neighbours), MPI_Init for the last rank to call it (Wait at MPI_Init: start-up imbalance).
#include <cstring>

#include "patterns.h"

namespace cpath {

bool wait_at_nxn_rule(const Op& op, const char* call, WaitPattern* out) {
  if (op.kind != OpKind::Collective) return false;
  if (op.pattern == Pattern::Neighbor) {
    *out = WaitPattern::WaitAtNeighbours;
    return true;
  }
  if (op.pattern != Pattern::All) return false;
  const bool barrier = call && (!std::strcmp(call, "MPI_Barrier") || !std::strcmp(call, "MPI_Ibarrier"));
  *out = barrier ? WaitPattern::WaitAtBarrier : WaitPattern::WaitAtNxN;
  return true;
}

}  // namespace cpath
