#include "rank_trace.h"

namespace cpath {

int RankTrace::comm_record(uint64_t handle, uint64_t tick) const {
  int best = -1;
  for (size_t i = 0; i < comms.size(); ++i) {
    const CommRecord& c = comms[i];
    if (c.handle != handle) continue;
    if (c.created_tick <= tick || c.created_tick == 0) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace cpath
