// The eager limit of docs/pag-rules.md rule 3: a standard-mode send of at most this many bytes
// completes without its receiver. Read once, at MPI_Finalize, from the MPI tool information
// interface (MPI_T control variables of the MPI library in use), unless option eager= gives
// it; stored in the trace meta data so the sequential reference uses the same numbers.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

#include "options.h"

namespace cpath {

struct EagerLimits {
  uint64_t intra = 4096;    // between ranks on one host
  uint64_t inter = 65536;   // between hosts
  std::string source = "default";  // "option eager=", "MPI_T <cvar>[, <cvar>]", or "default"
};

// Collective over `comm`: rank 0 decides (option, else MPI_T, else defaults), everyone gets
// its answer.
EagerLimits agree_eager_limits(const Options& opt, MPI_Comm comm);
// What this process's MPI library says (MPI_T), or the defaults. Local.
EagerLimits eager_limits_from_mpi_t();

}  // namespace cpath
