// Interposes sigaction and signal for SIGPROF. The CPU-time timer sampler (timer_sampler.h)
// signals its threads with SIGPROF; a program that installs a SIGPROF handler of its own after
// the sampler started (its own profiler, gperftools' ProfilerStart) would receive libcpath's
// signals, and libcpath would lose its samples without knowing. The sampler gives SIGPROF back
// first: its timers are deleted (the samples taken so far are kept) and the report says so.
#include <signal.h>

#include <atomic>

#include "pmu/next_symbol.h"
#include "pmu/timer_sampler.h"

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
using SignalFn = sighandler_t (*)(int, sighandler_t);

std::atomic<SigactionFn> g_sigaction{nullptr};
std::atomic<SignalFn> g_signal{nullptr};

}  // namespace

extern "C" __attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction* act,
                                                                struct sigaction* old) {
  if (sig == SIGPROF && act != nullptr) cpath::pmu::timer::release_sigprof(act);
  const SigactionFn real = cpath::pmu::detail::next_symbol(g_sigaction, "sigaction");
  return real ? real(sig, act, old) : -1;
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler) {
  if (sig == SIGPROF) {
    struct sigaction a {};
    a.sa_handler = handler;
    cpath::pmu::timer::release_sigprof(&a);
  }
  const SignalFn real = cpath::pmu::detail::next_symbol(g_signal, "signal");
  return real ? real(sig, handler) : SIG_ERR;
}
