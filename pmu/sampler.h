// Process-wide PMU sampler: perf events on every thread of the process,
// drained by one background thread into in-memory Samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmu/event_config.h"
#include "pmu/sample.h"
#include "pmu/timer_sampler.h"

namespace cpath::pmu {

// How software sampling is done when there are no hardware counters (or on request):
// automatic = perf events for hardware counters, else a POSIX CPU-time timer (timer_sampler.h);
// perf = perf events only (software cpu-clock without a PMU); timer = the timer only.
enum class Mechanism { automatic, perf, timer };

struct SamplerOptions {
  std::string events;          // "" = default: cycles+instructions, else the software fallback
  Mechanism mechanism = Mechanism::automatic;
  uint64_t period = 0;         // 0 = use freq_hz
  uint32_t freq_hz = 1000;
  // Period mode never samples faster than this per thread (the application must not starve
  // under its own sampler): a software clock's period is raised at start, any other event's
  // period is raised by the drain thread when it measures a faster rate. 0 = freq_hz.
  uint32_t max_rate_hz = 0;
  bool callchain = false;
  uint32_t ring_pages = 64;    // data pages per thread, rounded up to a power of two
  uint64_t max_samples = uint64_t{1} << 21;  // storage cap (~56 B each); excess is counted as dropped
  bool quiet = false;          // true: keep notes in SamplerStats only, print nothing
};

struct SamplerStats {
  EventSource source = EventSource::none;
  std::string note;            // why this source / what went wrong; "" if nothing to say
  uint64_t samples = 0;        // samples stored
  uint64_t lost = 0;           // samples the kernel could not write (ring full)
  uint64_t throttled = 0;      // PERF_RECORD_THROTTLE count
  uint64_t unthrottled = 0;
  uint64_t dropped = 0;        // decoded but not stored because of max_samples
  uint64_t malformed = 0;      // undecodable records (should stay 0)
  uint64_t period = 0;         // sample period in use at the end (period mode), 0 = frequency mode
  bool has_cycles = false;
  bool has_instructions = false;
  std::string events_used;     // e.g. "cycles+instructions", "cpu-clock" or "cpu-time timer"
  uint32_t freq_hz = 0;        // nominal samples per second of CPU time per thread (0: period mode)
  double effective_hz = 0;     // timer: samples per CPU second actually taken (the kernel checks
                               // CPU timers at its tick, so at most CONFIG_HZ); 0 for perf events
  double timer_ran_ns = 0;     // timer: timer::cpu_share of the samples (share = ran / cpu)
  double timer_cpu_ns = 0;
  // timer: the threads the samples miss (timer::unsampled)
  std::vector<timer::UnsampledThread> unsampled;
  uint32_t threads_monitored = 0;  // threads whose events were opened
  uint32_t threads_failed = 0;     // threads whose events could not be opened
  bool running = false;
};

// Opens events on all existing threads and starts the drain thread. Returns
// false (with a one-line stderr note unless quiet) when nothing could be
// opened; never aborts. Calling it while running returns true and changes
// nothing. Starting again after a stop discards the previous samples.
bool sampler_start(const SamplerOptions& options) noexcept;

// Called by the pthread_create hook inside each new thread; a no-op unless
// the sampler is running. Safe to call more than once per thread.
void sampler_on_thread_start() noexcept;

// Disables all events, drains what is left, joins the drain thread and
// closes the events. Idempotent.
void sampler_stop() noexcept;

SamplerStats sampler_stats() noexcept;

// Collected samples, in drain order (time-ordered per thread, not across
// threads). Valid after sampler_stop(); while running they are empty.
const std::vector<Sample>& sampler_samples() noexcept;
// Callchain entries referenced by Sample::chain_begin/chain_len, innermost
// first, kernel context markers removed. Entries after the first are return
// addresses: look up address-1 to get the calling line.
const std::vector<uint64_t>& sampler_callchains() noexcept;
// Frees the stored samples and callchains (stats stay).
void sampler_release_samples() noexcept;

namespace detail {
// For the pthread_create hook: cheap check whether new threads must open events.
bool sampler_wants_new_threads() noexcept;
}  // namespace detail

}  // namespace cpath::pmu
