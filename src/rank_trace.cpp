#include "rank_trace.h"

#include <algorithm>
#include <cinttypes>
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

std::string RankTrace::comm_name(int32_t rec) const {
  if (rec < 0 || static_cast<size_t>(rec) >= comms.size() || static_cast<size_t>(rec) >= comm_table.key.size()) return "?";
  const CommRecord& cr = comms[static_cast<size_t>(rec)];
  const uint64_t key = comm_table.key[static_cast<size_t>(rec)];
  if (key == kWorldCommKey) return "world";
  if (cr.flags & kCommSelf) return "self";
  if ((cr.flags & kCommDup) && cr.parent >= 0 && cr.parent < rec)
    return comm_name(cr.parent) + ".dup" + std::to_string(cr.dup_ordinal);
  char buf[48];
  if (key >> 63)
    std::snprintf(buf, sizeof buf, "i%016" PRIx64, key);
  else
    std::snprintf(buf, sizeof buf, "c%u.%u", static_cast<unsigned>(key >> 32), static_cast<unsigned>(key & 0xffffffffu));
  return buf;
}

}  // namespace cpath
