// Call sites seen through libraries (options skip= and stack=, docs/options.md). By default the
// call site of an MPI call is the wrapper's return address, at no cost beyond one predictable
// branch. With skip=libpetsc.so (stack=N widens it) the wrapper walks the stack with libunwind
// (per-thread cache: no signal-mask system calls) and charges the call to the innermost frame
// outside the skipped libraries, so an MPI call made inside PETSc is charged to the
// application's line that called PETSc.
#pragma once
#include <string>

namespace cpath {

extern int g_call_path_mode;  // 0: the return address (default); 1: walk the stack
const void* call_site_walk(const void* ra);

inline const void* call_site(const void* ra) {
  if (__builtin_expect(g_call_path_mode == 0, 1)) return ra;
  return call_site_walk(ra);
}

// At MPI_Init, after the options: stack = frames the walk may look up past `ra` (>= 1), skip =
// library names separated by ':' (a library matches when its file name starts with one).
// Returns "" or one line saying why the walk is not available.
std::string call_path_setup(int stack, const std::string& skip);

}  // namespace cpath
