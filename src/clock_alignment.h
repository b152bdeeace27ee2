// Mapping each rank's clock onto rank 0's: offsets measured by ping-pong against a parent in
// a binomial tree at MPI_Init and again at MPI_Finalize (O(log P) rounds, the lowest-latency
// sample of each exchange kept), composed down the tree into a linear offset + drift model.
#pragma once
#include <mpi.h>

#include <cstdint>

#include "clock.h"

namespace cpath {

struct AlignModel {
  int64_t ref_local_ns = 0;  // local time of the first measurement
  double offset_ns = 0;      // global - local at ref_local_ns
  double drift = 0;          // d(global - local) / d(local)
  int64_t to_global(int64_t local) const {
    return local + static_cast<int64_t>(offset_ns + drift * static_cast<double>(local - ref_local_ns));
  }
  int64_t to_local(int64_t global) const {
    const double x = static_cast<double>(global) - offset_ns + drift * static_cast<double>(ref_local_ns);
    return static_cast<int64_t>(x / (1.0 + drift));
  }
};

// One offset measurement against the parent: parent_clock - my_clock at my local time `at`.
struct OffsetSample {
  int64_t at_local_ns = 0;
  double offset_ns = 0;
  double rtt_ns = 0;
  bool valid = false;
};

// Collective over `comm`. Measures this rank's offset to its binomial-tree parent; raw tick
// readings are converted with `clock` (including any injected distortion).
OffsetSample measure_parent_offset(MPI_Comm comm, const TickModel& clock, int pingpongs);

// Collective over `comm`: composes the init and finalize measurements down the tree.
// `max_error_ns` receives the largest round-trip/2 along this rank's path to rank 0.
AlignModel compose_alignment(MPI_Comm comm, const OffsetSample& at_init, const OffsetSample& at_final,
                             double* max_error_ns);

}  // namespace cpath
