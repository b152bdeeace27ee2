// The distributed backward walk (docs/pag-rules.md rule 7): the path starts at the latest
// MPI_Finalize entry and follows the single outgoing edge of every vertex to the start-up.
// Every rank ends up with the path segments on its own timeline. Two implementations:
// - walk_critical_path: pointer jumping (docs/design.md, "Walk"), O(log H) collective rounds
//   for H hand-offs between ranks; what the analysis uses.
// - walk_critical_path_sequential: one message per hand-off, only the rank holding the path
//   works; the plain reference the jumping walk is tested against (option walk=check).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "pag.h"
#include "path_segments.h"
#include "walk_graph.h"

namespace cpath {

static_assert(kNoSegmentPrev == kNoEvent, "a segment without prev is kNoEvent");

struct WalkResult {
  std::vector<Segment> segments;  // this rank's, latest first, as walked
  // The measured path once extract_critical_path has it (analysis/analyse_and_report.cpp):
  // the same segments, compact, which the analyses after the walk read.
  PathSegments path;
  int start_rank = -1;            // rank with the latest MPI_Finalize entry
  int64_t finalize_begin = 0;     // its begin (aligned)
  int64_t job_begin = 0;          // earliest MPI_Init entry (aligned)
  uint64_t handoffs = 0;          // times the path left this rank for another
  bool truncated = false;         // step or round limit hit (should not happen on valid input)
  uint32_t rounds = 0;            // collective rounds of the jumping walk (0: sequential walk)
  double rounds_s = 0;            // time in those rounds on this rank
  int64_t nodes = -1;             // begin vertices the jumping walk had on this rank (-1: not walked by jumping)
};

// Collective over `comm`. Same segments, same order, as the sequential walk.
WalkResult walk_critical_path(const RankPag& pag, const Timeline& tl, MPI_Comm comm);
WalkResult walk_critical_path_jumping(const WalkGraph& g, MPI_Comm comm);
// Several walks in the rounds of one (the what-if's new paths, one graph per scenario): graph
// k's result, what walk_critical_path_jumping gives for it, goes to take(k, result, true) in
// order of k, one at a time (only one walk's segments are held). The rounds are the longest walk's
// instead of the sum; each round's messages carry every walk's requests. Every rank passes the
// same number of graphs.
// With `chunk`, a walk's segments go to take(k, part, false) in pieces of about `chunk`, in
// path order, emptied after each call; take(k, rest, true) ends walk k (handoffs, flags).
void walk_critical_paths_jumping(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm,
                                 const std::function<void(size_t, WalkResult&, bool last)>& take,
                                 size_t chunk = SIZE_MAX);
WalkResult walk_critical_path_sequential(const WalkGraph& g, MPI_Comm comm);

// Where every walk starts, agreed in one MPI_Allreduce: the latest MPI_Finalize entry (ties:
// lowest rank; rank -1 when nobody recorded one), the earliest MPI_Init entry, and the job's
// event count (bounds a runaway walk on inconsistent input).
struct WalkStart {
  int rank = -1;
  int64_t finalize_begin = 0;
  int64_t job_begin = 0;
  uint64_t total_events = 0;
  uint64_t max_events = 0;  // on one rank
};
WalkStart agree_walk_start(const WalkGraph& g, MPI_Comm comm);
std::vector<WalkStart> agree_walk_starts(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm);

// The part of the walk on one rank, pure: from the begin vertex of `event`, appends segments
// (latest first) until the path leaves the rank or reaches the start-up. Returns where the
// path continues (rank -1: it ended here). `steps` counts vertices against `limit`.
// With `pause_at`, it stops before a vertex once `segments` holds that many (paused: the path
// goes on here from the begin vertex of `event`; call again from there after taking them).
struct LocalWalkEnd {
  int rank = -1;
  uint32_t event = 0;
  bool truncated = false;
  bool paused = false;
};
LocalWalkEnd walk_local(const WalkGraph& g, int me, uint32_t event, int64_t job_begin, uint64_t& steps,
                        uint64_t limit, std::vector<Segment>* segments, size_t pause_at = SIZE_MAX);
LocalWalkEnd walk_local(const RankPag& pag, const Timeline& tl, int me, uint32_t event, int64_t job_begin,
                        uint64_t& steps, uint64_t limit, std::vector<Segment>* segments);

}  // namespace cpath
