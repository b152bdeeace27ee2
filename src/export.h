// Symbol visibility: the library exports only the MPI and Fortran entry points (and
// pthread_create for the sampler); everything else is compiled with -fvisibility=hidden.
#pragma once
#define CPATH_EXPORT __attribute__((visibility("default")))
// The application's return address: the call site recorded for an MPI call.
#define CPATH_CALLER __builtin_return_address(0)
