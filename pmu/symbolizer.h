// Address -> function, module, source line, using elfutils' libdwfl (so
// .symtab, .dynsym, DWARF, separate debuginfo and MiniDebugInfo all work).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmu/module_map.h"

namespace cpath::pmu {

// A symbol's name as users write it: Itanium C++ names demangled, gfortran's module
// procedures ("__heat_mod_MOD_solve") as "heat_mod::solve"; anything else unchanged.
std::string demangle_symbol(const char* name);

struct SymbolInfo {
  // Demangled C++ name, or the raw symbol (C, Fortran: "x_solve_cell_").
  // Without a symbol: "<module>+0x<offset>"; outside any module: "[unknown]".
  std::string function;
  std::string module;    // basename ("libfoo.so", "[vdso]"); "[unknown]" outside modules
  std::string file;      // source file when debug info has it, else ""
  uint32_t line = 0;     // 0 when unknown
  // ELF virtual address of the sample within the module (address - load
  // bias): what `addr2line -e <module>` and `objdump` show.
  uint64_t offset = 0;
  bool has_symbol = false;  // function came from a symbol table
  // Address range of that symbol ([symbol_start, symbol_start + symbol_size)), so callers can
  // answer other addresses inside the same function without another lookup. 0 when unknown.
  uint64_t symbol_start = 0;
  uint64_t symbol_size = 0;
};

struct SymbolizerOptions {
  // libdwfl may fetch debug info over the network through debuginfod when
  // DEBUGINFOD_URLS is set; at MPI_Finalize on many ranks that is not
  // acceptable, so it is off unless asked for.
  bool allow_debuginfod = false;
  // Source file:line needs the DWARF line tables of every module touched; hotspot tables only
  // need function and module, and skip that cost.
  bool source_lines = true;
};

// Not thread-safe: use one instance per thread (normally only finalize uses it).
class Symbolizer {
 public:
  // The modules loaded in this process now (dlopen'ed ones included while
  // they stay loaded), from /proc/self/maps.
  static Symbolizer from_current_process(const SymbolizerOptions& options = {}) noexcept;
  // Modules at the given places, for offline symbolisation (trace readers,
  // tests). The files must still exist at their paths.
  static Symbolizer from_module_map(const std::vector<ModuleMapEntry>& modules,
                                    const SymbolizerOptions& options = {}) noexcept;

  Symbolizer(Symbolizer&&) noexcept;
  Symbolizer& operator=(Symbolizer&&) noexcept;
  ~Symbolizer();

  // Results are cached per address; the reference stays valid for the
  // Symbolizer's lifetime. For return addresses from callchains pass
  // address-1 to get the call's line.
  const SymbolInfo& lookup(uint64_t address) noexcept;
  // Function and module only (no source line, whatever the options): for hotspot tables, so
  // one Symbolizer (one read of the process's modules) serves call sites and samples alike.
  const SymbolInfo& lookup_function(uint64_t address) noexcept;

  bool ok() const noexcept;                  // false: every lookup answers "[unknown]"
  const std::string& error() const noexcept;  // why not ok, one line

 private:
  struct Impl;
  explicit Symbolizer(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cpath::pmu
