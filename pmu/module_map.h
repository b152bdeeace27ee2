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

// A module unloaded while the sampler ran (dlclose, pmu/dl_hook.cpp): samples are symbolised at
// MPI_Finalize, and an address of a module gone by then belongs to nothing, or to the module
// loaded there after it. Samples taken before `unloaded_ns` (CLOCK_MONOTONIC_RAW, the samples'
// clock) inside `module`'s span are its.
struct UnloadedModule {
  ModuleMapEntry module;
  uint64_t unloaded_ns = 0;
};
// `before`: current_module_map() taken before a dlclose; records the modules no longer loaded.
void note_unloaded(const std::vector<ModuleMapEntry>& before) noexcept;
// In the order they were unloaded (at most kMaxUnloaded, the first ones).
std::vector<UnloadedModule> unloaded_modules() noexcept;
void clear_unloaded() noexcept;
constexpr size_t kMaxUnloaded = 4096;

}  // namespace cpath::pmu
