// What the timeline shows of one rank, gathered from the replay: every MPI call with its
// arguments (peers and roots as world ranks), the computation between a thread's calls, the
// rank's critical-path segments and where the path arrives from another rank. The writer
// (report/timeline.h) only formats this.
#pragma once
#include <vector>

#include "critical_path_walk.h"
#include "pag.h"
#include "site_names.h"
#include "timeline.h"
#include "timeline_writer.h"

namespace cpath {

// The hand-offs onto this rank: MPI segments whose PAG edge leads to another rank's begin.
std::vector<TlArrival> path_arrivals(const WalkResult& w, const RankPag& pag, int me);

// Takes w's segments (they are released once copied: the slices come after them).
TimelinePart build_timeline_part(const Timeline& tl, WalkResult& w, std::vector<TlArrival> arrivals,
                                 SiteNames& names, int me);

}  // namespace cpath
