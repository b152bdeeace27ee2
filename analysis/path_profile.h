// What one rank's share of the critical path is made of: time per MPI call, per call site,
// per activity (a compute interval between two call sites, or one MPI call site), and the
// totals of named activities over the rank's whole run (for the imbalance figure).
#pragma once
#include <cstdint>
#include <memory>
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
  // With call paths (stack > 1): "MPI_X at site" \x1d its frames (encode_site_frames) -> {1},
  // so rank 0 can give each call-site row its frames whichever rank symbolised them.
  StringTable site_frames;
};

// The frames of a call-site row travel inside a StringTable key (reduced like the others).
std::string encode_site_frames(const std::vector<SiteFrame>& frames);
std::vector<SiteFrame> decode_site_frames(const std::string& encoded);

// Rank-independent description of the activity a segment belongs to, in user region `region`
// when not empty ("compute in region solve between ...").
std::string describe_activity(const Segment& s, const Timeline& tl, SiteNames& names, const std::string& region = "");
// With `regions`, a segment is split where user regions change and each part is an activity
// of its region (analysis/regions.h).
PathProfile profile_path(const WalkResult& w, const Timeline& tl, SiteNames& names, int rank,
                         const RegionMap* regions = nullptr);

// The same profile from segments given a chunk at a time (the what-if profiles each
// scenario's new path as the walk emits it, so no whole path is held): add() each chunk in
// path order, then finish() once.
// Every event's activities as dense ids (its MPI call's, the compute's before it), made once
// for profiles of many paths over one timeline (the what-if's new paths): a profile given them
// adds a segment by index instead of hashing its activity (on halo_bench that hashing was a
// tenth of the analysis's CPU). 8 bytes per event. Not used with user regions, which split
// segments.
struct ActivityIds;
std::shared_ptr<const ActivityIds> make_activity_ids(const Timeline& tl);

class PathProfiler {
 public:
  PathProfiler(const Timeline& tl, SiteNames& names, int rank, const RegionMap* regions = nullptr,
               std::shared_ptr<const ActivityIds> ids = nullptr);
  ~PathProfiler();
  void add(const std::vector<Segment>& segments);
  void add(const PathSegments& segments);
  PathProfile finish();

 private:
  void add_one(const Segment& s);
  struct State;
  std::unique_ptr<State> st_;
};
// Wall-clock time this rank spent in each of the named activities over its whole run (threads
// in the same activity at once count once, as on the path).
std::vector<double> activity_totals(const std::vector<std::string>& activities, const Timeline& tl,
                                    SiteNames& names, const RegionMap* regions = nullptr);

}  // namespace cpath
