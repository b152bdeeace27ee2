// The critical path's composition over the run: how much of each time bin the path spent in
// compute, inside MPI and in start-up (this rank's segments; summed over ranks they give the
// whole path, since the path is on exactly one rank at a time).
#pragma once
#include <cstdint>
#include <vector>

#include "critical_path_walk.h"

namespace cpath {

// 3 * nbins seconds: compute bins, then MPI bins, then start-up bins, over [t0, t1).
std::vector<double> path_time_bins(const WalkResult& w, int64_t t0, int64_t t1, int nbins);

}  // namespace cpath
