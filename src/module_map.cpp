#include "module_map.h"

#include <algorithm>

#include "pmu/module_map.h"

namespace cpath {

ModuleMap ModuleMap::current_process() {
  ModuleMap mm;
  for (const pmu::ModuleMapEntry& e : pmu::current_module_map())
    mm.mods_.push_back(ModuleInfo{e.bias, e.base, e.base + e.size, e.path});
  mm.sort();
  return mm;
}

void ModuleMap::sort() {
  std::sort(mods_.begin(), mods_.end(), [](const ModuleInfo& a, const ModuleInfo& b) { return a.start < b.start; });
}

int ModuleMap::find(uint64_t addr) const {
  auto it = std::upper_bound(mods_.begin(), mods_.end(), addr,
                             [](uint64_t a, const ModuleInfo& m) { return a < m.start; });
  if (it == mods_.begin()) return -1;
  --it;
  return addr < it->end ? static_cast<int>(it - mods_.begin()) : -1;
}

std::string basename_of(const std::string& path) {
  const size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace cpath
