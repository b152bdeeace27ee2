// At exit: say so when the program initialised MPI without passing through any MPI_Init
// wrapper (MPICH's mpi_f08 procedures did, calling PMPI_Init, before libcpath wrapped them), so
// that a missing report is never silent. Part of libcpath.so only: test programs that link
// cpath_core and call MPI themselves are not preloaded applications.
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "runtime.h"

namespace cpath {
namespace {

// Only under MPICH, whose MPI_Initialized reads one state word and is safe after MPI_Finalize
// or without it; Open MPI's runs the hooks of frameworks that MPI_Finalize has closed. (A
// bypassed MPI_Init whose MPI_Finalize does come through a wrapper is told there, under either.)
// The rank comes from the launcher's environment (Hydra, PMIx), so that a job prints one line.
#if defined(MPICH_NUMVERSION) && !defined(I_MPI_VERSION)
void check_init_bypassed_at_exit() {
  if (init_seen()) return;
  int flag = 0;
  if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return;
  const char* rank = std::getenv("PMI_RANK");
  if (!rank) rank = std::getenv("PMIX_RANK");
  if (rank && std::strcmp(rank, "0") != 0) return;
  tell_init_bypassed();
}

__attribute__((constructor)) void arm_init_bypass_check() { std::atexit(check_init_bypassed_at_exit); }
#endif

}  // namespace
}  // namespace cpath
