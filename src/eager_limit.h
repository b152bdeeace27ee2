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
  // A standard send of at most this many bytes returns without its receiver; above it and up
  // to the eager limit the data leaves eagerly, but the send may still be held until the
  // receiver's MPI takes it (Open MPI's ob1 sends only up to 256 bytes inline; a larger eager
  // message is handed over in a shared-memory fragment that the sender gets back only when
  // the receiver's progress has copied it out, unless a fast box had room). Equal to the
  // eager limits where nothing holds an eager send.
  uint64_t inline_intra = 4096, inline_inter = 65536;
  std::string source = "default";  // "option eager=", "MPI_T <cvar>[, <cvar>]", or "default"
  void hold_nothing() { inline_intra = intra, inline_inter = inter; }
};

// Collective over `comm`: rank 0 decides (option, else MPI_T, else defaults), everyone gets
// its answer.
EagerLimits agree_eager_limits(const Options& opt, MPI_Comm comm);
// What this process's MPI library says (MPI_T), or the defaults. Local.
EagerLimits eager_limits_from_mpi_t();

}  // namespace cpath
