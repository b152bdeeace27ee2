// Call sites seen through libraries (options skip= and stack=, docs/options.md). By default the
// call site of an MPI call is the wrapper's return address, at no cost beyond one predictable
// branch. With skip=libpetsc.so the wrapper walks the stack with libunwind (per-thread cache:
// no signal-mask system calls) and charges the call to the innermost frame outside the skipped
// libraries, so an MPI call made inside PETSc is charged to the application's line that called
// PETSc. With stack=N > 1 the recorded value is instead the number of the call's path (its N
// innermost frames outside the skipped libraries), interned in a per-process table through a
// per-thread cache, so the trace keeps one small number per call and reports group by path.
#pragma once
#include <string>

#include "call_path_table.h"

namespace cpath {

// 0: the return address (default); 1: innermost frame outside skip=; 2: call path number.
extern int g_call_path_mode;
const void* call_site_walk(const void* ra);

// The call site value recorded for an MPI call whose wrapper returns to `ra`: an address, or
// with stack > 1 a path number (CallPaths::path) disguised as a pointer.
inline const void* call_site(const void* ra) {
  if (__builtin_expect(g_call_path_mode == 0, 1)) return ra;
  return call_site_walk(ra);
}

// At MPI_Init, after the options: stack = frames kept per path (1: one call site, not a path),
// skip = library names separated by ':' (a library matches when its file name starts with one).
// Returns "" or one line saying why the walk is not available.
std::string call_path_setup(int stack, const std::string& skip);

// The paths interned so far (finalize, after recording stopped); inactive unless stack > 1.
CallPaths call_path_snapshot();
// Calls whose path found the table full (they are recorded as path 0).
uint64_t call_paths_overflowed();

// For the crash-time writer: the table in place, without allocating. Paths [0, *n) are
// complete; path i has lens[i] frames at frames + i * depth.
const uint64_t* call_path_raw(uint32_t* depth, uint32_t* n, const uint8_t** lens);

}  // namespace cpath
