// The next definition of an interposed function (normally libc's), resolved once with
// dlsym(RTLD_NEXT) and cached; null when there is none. For pthread_create, sigaction and
// signal, which libcpath interposes (thread_hook.cpp, signal_hook.cpp).
#pragma once

#include <dlfcn.h>

#include <atomic>

namespace cpath::pmu::detail {

// `cache` must be constant-initialised (a hook may run before static initialisers).
template <typename Fn>
Fn next_symbol(std::atomic<Fn>& cache, const char* name) noexcept {
  Fn f = cache.load(std::memory_order_acquire);
  if (f != nullptr) return f;
  // A data-pointer-to-function-pointer conversion is what dlsym requires.
  f = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (f != nullptr) cache.store(f, std::memory_order_release);
  return f;
}

}  // namespace cpath::pmu::detail
