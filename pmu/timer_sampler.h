// Software sampling with POSIX CPU-time timers, as gperftools does: one timer per thread on
// that thread's CPU clock sends SIGPROF to the thread every `interval_ns` of its CPU time; the
// handler stores (time, ip, tid) in a lock-free ring that a drain thread empties. The kernel
// checks CPU timers at the scheduler tick of the running thread only, so, unlike a per-thread
// perf event, nothing is done at a context switch: oversubscribed ranks that yield tens of
// thousands of times a second pay nothing extra (bench/sampling_cost.py has the figures).
// Resolution is the tick (CONFIG_HZ); the ip is where the thread resumes in user space, so time
// in system calls goes to the libc wrapper that made them (e.g. __sched_yield).
#pragma once

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

}  // namespace cpath::pmu::timer
