// cpath-ref's twin of analysis/startup.cpp's per-rank figures, from the dumped traces: time
// before MPI_Init (trace metadata), MPI_Init's duration, MPI_Finalize entry to the analysis
// start, in startup.csv's columns minus the host.
//
//   cpath-ref --startup DIR   prints rank,preinit_s,init_s,finalize_s
#pragma once

namespace cpath {
namespace ref {

int startup_main(int argc, char** argv);

}  // namespace ref
}  // namespace cpath
