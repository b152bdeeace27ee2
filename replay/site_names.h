// Human-readable names for call sites (return addresses of MPI calls): "file.c:42" when the
// module has line information, else "function+0x1c (module)", else "module+0x1234".
// Symbolised on the rank that recorded the address, at finalize.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace cpath::pmu {
class Symbolizer;
}

namespace cpath {

class SiteNames {
 public:
  SiteNames();
  ~SiteNames();
  const std::string& name(uint64_t return_address);
  // Function containing the address (for grouping), e.g. "x_solve_cell_".
  const std::string& function(uint64_t return_address);
  // The process's symboliser (hotspots share it: the modules are read once per rank).
  pmu::Symbolizer& symbolizer();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cpath
