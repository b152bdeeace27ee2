// What one rank's share of the critical path is made of: time per MPI call, per call site,
// per activity (a compute interval between two call sites, or one MPI call site), and the
// totals of named activities over the rank's whole run (for the imbalance figure).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "critical_path_walk.h"
#include "site_names.h"
#include "timeline.h"
#include "tree_reduce.h"

namespace cpath {

class RegionMap;

struct PathProfile {
  double total_ns = 0, compute_ns = 0, mpi_ns = 0, startup_ns = 0;
  std::vector<double> call_ns;       // per call id
  std::vector<double> call_count;
  StringTable sites;                 // "MPI_X at site" -> {ns, count}
  StringTable activities;            // "<rank>\x1f<kind>\x1f<activity>" -> {ns, count}
  StringTable path_by_activity;      // "<activity>" -> {ns}
};

// Rank-independent description of the activity a segment belongs to, in user region `region`
// when not empty ("compute in region solve between ...").
std::string describe_activity(const Segment& s, const Timeline& tl, SiteNames& names, const std::string& region = "");
// With `regions`, a segment is split where user regions change and each part is an activity
// of its region (analysis/regions.h).
PathProfile profile_path(const WalkResult& w, const Timeline& tl, SiteNames& names, int rank,
                         const RegionMap* regions = nullptr);
// Total time this rank spent in each of the named activities over its whole run.
std::vector<double> activity_totals(const std::vector<std::string>& activities, const Timeline& tl,
                                    SiteNames& names, const RegionMap* regions = nullptr);

}  // namespace cpath
