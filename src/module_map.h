// Where each loaded module (executable, shared library) sits in memory, so call sites and
// samples can be stored as module + offset: they then survive ASLR, PIE and shared objects.
// Read from pmu::current_module_map(); this adds lookup by address and the trace-file form.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cpath {

struct ModuleInfo {
  uint64_t base = 0;   // load bias (dlpi_addr)
  uint64_t start = 0;  // lowest mapped address of its PT_LOAD segments
  uint64_t end = 0;    // one past the highest
  std::string path;
};

class ModuleMap {
 public:
  static ModuleMap current_process();
  // Index of the module containing addr, or -1.
  int find(uint64_t addr) const;
  const std::vector<ModuleInfo>& modules() const { return mods_; }
  std::vector<ModuleInfo>& modules() { return mods_; }
  void sort();

 private:
  std::vector<ModuleInfo> mods_;  // sorted by start
};

std::string basename_of(const std::string& path);

}  // namespace cpath
