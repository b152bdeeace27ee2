// The distributed backward walk (seed 000 step 5): it starts at the latest MPI_Finalize entry;
// only the rank holding the path works, and when an edge leads to another rank it hands the
// path over with one message. Every rank ends up with the path segments on its own timeline.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "pag.h"

namespace cpath {

enum class SegmentKind : uint8_t {
  Compute,  // between the end of `prev` and the begin of `event` (outside MPI)
  Mpi,      // inside MPI call `event`
  Startup   // before MPI_Init on this rank, from the job's first MPI_Init entry
};

struct Segment {
  int64_t begin = 0;
  int64_t end = 0;
  uint32_t event = 0;
  uint32_t prev = kNoEvent;
  SegmentKind kind = SegmentKind::Compute;
};

struct WalkResult {
  std::vector<Segment> segments;  // this rank's, latest first
  int start_rank = -1;            // rank with the latest MPI_Finalize entry
  int64_t finalize_begin = 0;     // its begin (aligned)
  int64_t job_begin = 0;          // earliest MPI_Init entry (aligned)
  uint64_t handoffs = 0;          // messages this rank sent to pass the path on
  bool truncated = false;         // step limit hit (should not happen on valid input)
};

// Collective over `comm`.
WalkResult walk_critical_path(const RankPag& pag, const Timeline& tl, MPI_Comm comm);

// The part of the walk on one rank, pure: from the begin vertex of `event`, appends segments
// (latest first) until the path leaves the rank or reaches the start-up. Returns where the
// path continues (rank -1: it ended here). `steps` counts vertices against `limit`.
struct LocalWalkEnd {
  int rank = -1;
  uint32_t event = 0;
  bool truncated = false;
};
LocalWalkEnd walk_local(const RankPag& pag, const Timeline& tl, int me, uint32_t event, int64_t job_begin,
                        uint64_t& steps, uint64_t limit, std::vector<Segment>* segments);

}  // namespace cpath
