#include "rank_trace.h"

#include <algorithm>

namespace cpath {

int RankTrace::comm_record(uint64_t handle, uint64_t tick) const {
  if (comm_index_.empty() && !comms.empty()) {
    for (size_t i = 0; i < comms.size(); ++i)
      comm_index_[comms[i].handle].emplace_back(comms[i].created_tick, static_cast<int>(i));
    for (auto& kv : comm_index_) std::stable_sort(kv.second.begin(), kv.second.end(),
                                                  [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  auto it = comm_index_.find(handle);
  if (it == comm_index_.end()) return -1;
  const auto& v = it->second;
  // Last record created at or before the event.
  auto pos = std::upper_bound(v.begin(), v.end(), tick, [](uint64_t t, const auto& e) { return t < e.first; });
  return pos == v.begin() ? -1 : std::prev(pos)->second;
}

}  // namespace cpath
