// Software sampling with POSIX CPU-time timers, as gperftools does: one timer per thread on
// that thread's CPU clock sends SIGPROF to the thread every `interval_ns` of its CPU time; the
// handler stores (time, ip, tid) in a lock-free ring that a drain thread empties. The kernel
// checks CPU timers at the scheduler tick of the running thread only, so, unlike a per-thread
// perf event, nothing is done at a context switch: oversubscribed ranks that yield tens of
// thousands of times a second pay nothing extra (bench/sampling_cost.py has the figures).
// Resolution is the tick (CONFIG_HZ); the ip is where the thread resumes in user space, so time
// in system calls goes to the libc wrapper that made them (e.g. __sched_yield).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pmu/sample.h"

namespace cpath::pmu::timer {

// Installs the SIGPROF handler and a timer on every thread of the process, starts the drain
// thread. False (with the reason in `why`) when SIGPROF already has a handler of the program's,
// or timers cannot be created: the caller then uses perf events.
bool start(uint64_t interval_ns, uint64_t max_samples, std::string& why) noexcept;
// From the new thread itself (pthread_create hook). No-op unless running.
void add_current_thread() noexcept;
bool running() noexcept;
// Deletes the timers, joins the drain thread and appends the samples to `out` (the handler
// stays installed, as a no-op: a signal still queued must not kill the process).
void stop(std::vector<Sample>& out, uint64_t& lost, uint64_t& dropped, uint32_t& threads) noexcept;

// A thread whose CPU time, while it was timed, the samples miss by more than half and by at least
// kUnsampledMinNs (and ten periods): one that blocks SIGPROF (thread pools and I/O threads often
// block every signal) is never sampled, since its timer's signal stays pending and the timer is
// not re-armed. Filled by stop(); the threads' CPU time is read at their exit or at stop().
struct UnsampledThread {
  uint32_t tid;
  int64_t cpu_ns;
  int64_t sampled_ns;
  int sigprof_blocked;  // 1 blocked, 0 not (read at its exit, or from /proc at stop), -1 unreadable
};
constexpr int64_t kUnsampledMinNs = 20 * 1000 * 1000;
std::vector<UnsampledThread> unsampled();

// The program is about to install `act` for SIGPROF (pmu/signal_hook.cpp). Unless it is the
// sampler's own handler, or the sampler is not running, the timers are deleted first so that no
// further SIGPROF of libcpath's reaches the program; the samples so far are kept for stop().
void release_sigprof(const struct sigaction* act) noexcept;
// Whether release_sigprof stopped the sampling this run (for the report's note).
bool sigprof_released() noexcept;

// How much of a CPU the sampled threads had between their samples. A sample stands for the CPU
// time since its thread's previous one (its weight W) and came G of wall time after it; W / G
// is the share of a CPU the thread ran on in between (1: it was never descheduled or blocked).
// `ran_ns` sums W * min(1, W / G) and `cpu_ns` sums W over every sample that has a predecessor
// on its thread, so ran_ns / cpu_ns is the CPU-weighted mean share: an idle thread's rare
// sample after seconds of sleep weighs what little CPU it stands for.
//
// Why it matters: the kernel checks CPU timers at its tick, and a thread that does not run for
// whole ticks is sampled where its slices end, not where its CPU time went. A wait that lasts
// until some wall time has passed (an MPI call waiting for a message) then collects the samples
// of the ticks that end its slices: a thread alternating 6 ms of computation with a 4 ms busy
// wait, on 15 % of a CPU, had 45 % of its samples in the wait against 25 % of its CPU time
// (bench/timer_bias.c).
struct CpuShare {
  double ran_ns = 0;
  double cpu_ns = 0;
};
CpuShare cpu_share(const std::vector<Sample>& samples);

}  // namespace cpath::pmu::timer
