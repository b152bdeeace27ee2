// Internal interface of the pthread_create interposer (thread_hook.cpp).
#pragma once

#include <pthread.h>

namespace cpath::pmu::detail {

using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

// The next pthread_create after ours (normally glibc's), resolved once.
// Used by the sampler to start its drain thread without being hooked, which
// also guarantees thread_hook.o is linked in from the static archive.
PthreadCreateFn real_pthread_create() noexcept;

}  // namespace cpath::pmu::detail
