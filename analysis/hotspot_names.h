// How sampled functions are named in the hotspot tables, so one function is one row: GCC clone
// suffixes merged, libcpath's own wrappers named after the MPI call they wrap (in every
// mangling: mpi_send_, MPI_SEND, mpi_send_f08_ -> MPI_Send), addresses without a symbol grouped
// per module.
#pragma once
#include <string>

#include "pmu/hotspots.h"
#include "pmu/symbolizer.h"

namespace cpath {

// "fftz2_.constprop.0" -> "fftz2_"; also .isra.N, .part.N, .cold, .lto_priv.N, the
// demangler's " [clone .constprop.0]" and symbol versions ("@GLIBC_2.2.5").
std::string strip_clone_suffix(const std::string& function);
// "MPI_Send" for any spelling of a wrapped MPI function (C, the four Fortran manglings, mpi_f08,
// PMPI_ prefix); "" when `symbol` is not one.
std::string canonical_mpi_name(const std::string& symbol);
// The hotspot row a sample at `si` belongs to. `own_module`: the sample is inside libcpath
// itself, whose code runs only inside wrapped MPI calls (the key's mpi_call names the call).
pmu::FunctionKey hotspot_key(const pmu::SymbolInfo& si, bool own_module);

}  // namespace cpath
