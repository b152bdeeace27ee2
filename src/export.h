// Symbol visibility: the library exports only the MPI and Fortran entry points (and
// pthread_create for the sampler); everything else is compiled with -fvisibility=hidden.
#pragma once
#define CPATH_EXPORT __attribute__((visibility("default")))
// The call site recorded for an MPI call: the application's return address, or with skip= the
// innermost frame outside the skipped libraries (call_path.h).
#define CPATH_CALLER cpath::call_site(__builtin_return_address(0))
