// Human-readable names for call sites (return addresses of MPI calls): "file.c:42" when the
// module has line information, else "function+0x1c (module)", else "module+0x1234".
// Symbolised on the rank that recorded the address, at finalize. With stack > 1 the recorded
// values are call-path numbers (call_path_table.h): a path is named by its frames, innermost
// first, "lib.c:10 ← app.c:20 ← app.c:5", so every table keyed by the name groups by path.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace cpath::pmu {
class Symbolizer;
}

namespace cpath {

struct CallPaths;

// One frame of a call path, symbolised.
struct SiteFrame {
  std::string function, file;
  uint32_t line = 0;
};

class SiteNames {
 public:
  SiteNames();
  ~SiteNames();
  // Call site values are path numbers of `paths` from now on (when it is active).
  void use_call_paths(const CallPaths* paths);
  bool has_call_paths() const;
  const std::string& name(uint64_t return_address);
  // The frames behind name(v): one for a return address, the path's for a path number.
  std::vector<SiteFrame> frames(uint64_t v);
  // Function containing the address (for grouping), e.g. "x_solve_cell_".
  const std::string& function(uint64_t return_address);
  // The process's symboliser (hotspots share it: the modules are read once per rank).
  pmu::Symbolizer& symbolizer();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cpath
