// How long this process has existed, from the kernel's record of its start (seed 004: the
// time before MPI_Init — exec, dynamic loading, the application's own set-up — is part of
// start-up). Called once, at MPI_Init entry.
#pragma once
#include <cstdint>

namespace cpath {

// Nanoseconds since the process started (resolution: the kernel's clock tick, usually 10 ms,
// rounded so that the figure is never too small), or -1 when /proc cannot tell.
int64_t process_age_ns();

}  // namespace cpath
