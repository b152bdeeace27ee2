// Internal interface of the pthread_create interposer (thread_hook.cpp).
#pragma once

#include <pthread.h>

#include <cstdint>

namespace cpath::pmu::detail {

using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

// The next pthread_create after ours (normally glibc's), resolved once.
// Used by the sampler to start its drain thread without being hooked, which
// also guarantees thread_hook.o is linked in from the static archive.
PthreadCreateFn real_pthread_create() noexcept;

}  // namespace cpath::pmu::detail

namespace cpath::pmu {

// Thread births for the trace (docs/pag-rules.md rule 1): `creator` runs in the creating thread
// at pthread_create and fills two values; `child` gets them in the new thread before its
// routine. Registered by the recording runtime at MPI_Init; null: births are not followed.
using BirthCreatorFn = void (*)(uint64_t* ticks, int64_t* creator);
using BirthChildFn = void (*)(uint64_t ticks, int64_t creator);
void set_thread_birth_hooks(BirthCreatorFn creator, BirthChildFn child) noexcept;

}  // namespace cpath::pmu

namespace cpath::pmu::detail {

}  // namespace cpath::pmu::detail
