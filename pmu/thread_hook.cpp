// Interposes pthread_create so that threads created after sampler_start()
// (OpenMP workers, MPI progress threads) open their own perf events before
// running the user's routine. Per-thread perf events are not inherited by new
// threads, and PERF_SAMPLE_READ forbids attr.inherit, hence the hook.
#include "pmu/thread_hook.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "pmu/diagnostic.h"
#include "pmu/next_symbol.h"
#include "pmu/sampler.h"

namespace cpath::pmu::detail {
namespace {

// Constant-initialised so the hook works for threads created by other
// libraries' constructors, before our own static initialisers ran.
std::atomic<PthreadCreateFn> g_real{nullptr};

std::atomic<BirthCreatorFn> g_birth_creator{nullptr};
std::atomic<BirthChildFn> g_birth_child{nullptr};

struct Trampoline {
  void* (*fn)(void*);
  void* arg;
  bool sample;
  BirthChildFn born;
  uint64_t birth_ticks;
  int64_t creator;
};

void* trampoline(void* p) {
  const Trampoline t = *static_cast<Trampoline*>(p);
  std::free(p);
  if (t.born) t.born(t.birth_ticks, t.creator);
  if (t.sample) sampler_on_thread_start();
  return t.fn(t.arg);
}

}  // namespace

PthreadCreateFn real_pthread_create() noexcept { return next_symbol(g_real, "pthread_create"); }

}  // namespace cpath::pmu::detail

namespace cpath::pmu {
void set_thread_birth_hooks(BirthCreatorFn creator, BirthChildFn child) noexcept {
  detail::g_birth_child.store(child, std::memory_order_release);
  detail::g_birth_creator.store(creator, std::memory_order_release);
}
}  // namespace cpath::pmu

extern "C" __attribute__((visibility("default"))) int pthread_create(
    pthread_t* thread, const pthread_attr_t* attr, void* (*start_routine)(void*),
    void* arg) noexcept {
  using namespace cpath::pmu;
  const detail::PthreadCreateFn real = detail::real_pthread_create();
  if (real == nullptr) {
    static std::atomic<bool> told{false};
    if (!told.exchange(true)) detail::diag("cannot resolve the real pthread_create (dlsym RTLD_NEXT)");
    return EAGAIN;
  }
  const bool sample = detail::sampler_wants_new_threads();
  const BirthCreatorFn births = detail::g_birth_creator.load(std::memory_order_acquire);
  if (!sample && births == nullptr) return real(thread, attr, start_routine, arg);

  // malloc, not new: no exception can escape into a C caller, and failure is
  // visible here. Freed by the new thread (or below if creation fails).
  auto* t = static_cast<detail::Trampoline*>(std::malloc(sizeof(detail::Trampoline)));
  if (t == nullptr) {
    static std::atomic<bool> told{false};
    if (!told.exchange(true))
      detail::diag("out of memory in pthread_create hook; a new thread is not sampled");
    return real(thread, attr, start_routine, arg);
  }
  t->fn = start_routine;
  t->arg = arg;
  t->sample = sample;
  t->born = births ? detail::g_birth_child.load(std::memory_order_acquire) : nullptr;
  t->birth_ticks = 0;
  t->creator = -1;
  if (t->born) births(&t->birth_ticks, &t->creator);
  const int rc = real(thread, attr, detail::trampoline, t);
  if (rc != 0) std::free(t);
  return rc;
}
