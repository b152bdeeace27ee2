// Everything the generated wrappers (c_wrappers.cpp, fortran_wrappers.cpp) include.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "call_path.h"
#include "call_table.h"
#include "clock.h"
#include "comm_registry.h"
#include "export.h"
#include "mpi_helpers.h"
#include "record_writer.h"
#include "runtime.h"
#include "thread_state.h"
#include "unrecorded.h"

namespace cpath {

// next_symbol (runtime.h) typed for the wrapper's call. MPICH's mpi_f08 procedures have no
// profiling twin to call; each wrapper looks its procedure up once, on its first call.
template <class Fn>
Fn next_procedure(const char* name) {
  return reinterpret_cast<Fn>(next_symbol(name));
}

}  // namespace cpath
