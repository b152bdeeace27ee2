#include "rank_trace.h"

#include <algorithm>
#include <cstdio>

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

namespace cpath {

std::vector<ThreadBirth> thread_births(const RankTrace& t) {
  std::vector<ThreadBirth> out;
  const std::string s = t.meta_value("thread_births");
  size_t p = 0;
  while (p < s.size()) {
    size_t q = s.find(';', p);
    if (q == std::string::npos) q = s.size();
    unsigned long thread = 0;
    long long creator = 0;
    unsigned long long ticks = 0;
    if (std::sscanf(s.substr(p, q - p).c_str(), "%lu:%lld:%llu", &thread, &creator, &ticks) == 3)
      out.push_back(ThreadBirth{static_cast<uint32_t>(thread), creator, ticks});
    p = q + 1;
  }
  std::sort(out.begin(), out.end(), [](const ThreadBirth& a, const ThreadBirth& b) { return a.thread < b.thread; });
  return out;
}

}  // namespace cpath
