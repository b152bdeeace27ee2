// Everything the generated wrappers (c_wrappers.cpp, fortran_wrappers.cpp) include.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "call_table.h"
#include "clock.h"
#include "comm_registry.h"
#include "export.h"
#include "mpi_helpers.h"
#include "record_writer.h"
#include "runtime.h"
#include "thread_state.h"
#include "unrecorded.h"
