// Where each ELF module of a process is loaded: the input that lets samples
// be symbolised later, offline, or from a trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpath::pmu {

struct ModuleMapEntry {
  std::string path;   // file the module was loaded from (absolute when known)
  uint64_t base = 0;  // start of its first PT_LOAD segment, page-aligned: the
                      // start of its offset-0 mapping in /proc/PID/maps
  uint64_t size = 0;  // span of its PT_LOAD segments from base
  uint64_t bias = 0;  // load bias (dl_iterate_phdr's dlpi_addr): address - bias = ELF address
};

// The modules loaded in this process now (executable, shared libraries,
// dlopen'ed modules), from dl_iterate_phdr. The vDSO is left out (no file).
std::vector<ModuleMapEntry> current_module_map() noexcept;

}  // namespace cpath::pmu
