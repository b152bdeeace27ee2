// A rank's events from all its threads merged into one time-ordered timeline, with times on
// the aligned (global) clock and communicators resolved to their records.
#pragma once
#include <cstdint>
#include <vector>

#include "event.h"
#include "rank_trace.h"

namespace cpath {

struct TimelineEvent {
  int64_t begin = 0;  // aligned ns
  int64_t end = 0;
  int32_t comm = -1;  // communicator record index
  Event e;
};

struct Timeline {
  int rank = 0;
  int size = 1;
  std::vector<TimelineEvent> ev;
  std::vector<Completion> completions;  // TimelineEvent::e.list_* point here
  std::vector<uint64_t> reqlists;
  const RankTrace* trace = nullptr;

  const CommTable& comms() const { return trace->comm_table; }
  // Job-wide key of the communicator record, or 0 when unknown.
  uint64_t comm_key(int32_t rec) const {
    return rec >= 0 && static_cast<size_t>(rec) < trace->comm_table.key.size() ? trace->comm_table.key[static_cast<size_t>(rec)] : 0;
  }
  int32_t world_rank(int32_t rec, int32_t local) const {
    return rec < 0 ? -1 : trace->comm_table.world_rank(static_cast<size_t>(rec), local);
  }
  int32_t my_local_rank(int32_t rec) const {
    return rec >= 0 && static_cast<size_t>(rec) < trace->comms.size() ? trace->comms[static_cast<size_t>(rec)].local_rank : -1;
  }
};

Timeline build_timeline(const RankTrace& t);

}  // namespace cpath
