// perf_event_attr sets for the sampler: the default hardware group, the
// software fallback, and user-named events encoded by libpfm4.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pmu/perf_record_decoder.h"

namespace cpath::pmu {

enum class EventSource { none, hardware, software };

const char* to_string(EventSource s) noexcept;

struct SamplingParams {
  uint64_t period = 0;        // > 0: fixed sample period in leader-event units; wins over freq
  uint32_t freq_hz = 1000;    // used when period == 0 (0 also means 1000)
  bool callchain = false;     // user-space callchains (frame-pointer based, by the kernel)
  uint32_t wakeup_bytes = 0;  // ring fill level that wakes the drain thread; 0 = kernel default (half)
};

struct EventSpec {
  std::string name;  // as the user wrote it, or our canonical name
  perf_event_attr attr;
};

struct EventConfig {
  // events[0] is the group leader and the only event that samples; the others
  // are counted and arrive in every sample through PERF_SAMPLE_READ.
  std::vector<EventSpec> events;
  EventSource source = EventSource::none;
  RecordLayout layout;          // shape of the records in the leader's ring
  int cycles_index = -1;        // position in the group read; -1 = not counted
  int instructions_index = -1;
  // true: the leader is a software clock whose period is in nanoseconds, so a
  // sample's CPU-time weight is its period. false: weight is the growth of
  // the group's time_enabled between two samples of the same thread.
  bool weight_from_period = false;

  std::string names() const;  // "cycles+instructions"
};

// {cycles (leader, sampling), instructions}, read as one group per sample.
EventConfig default_hardware_config(const SamplingParams& p);

// cpu-clock sampling for machines without a usable hardware PMU.
EventConfig software_fallback_config(const SamplingParams& p);

// Events named by the user, separated by '+' ("cycles+instructions"); the
// first one samples. Names are anything libpfm4 understands for the perf_event
// OS layer ("cycles", "cpu-clock", "INST_RETIRED:ANY_P", ...). On failure
// returns false with a one-line reason in `error`.
bool user_event_config(const std::string& list, const SamplingParams& p, EventConfig& out,
                       std::string& error) noexcept;

// Encodes one event name with libpfm4 (PFM_PLM3, i.e. user level only).
// Only the event-identifying fields (type, config*, precise_ip) of `attr`
// are written; the rest stays as the caller set it.
bool encode_event_name(const std::string& name, perf_event_attr& attr, std::string& error) noexcept;

// errno values from perf_event_open that mean "this kind of event cannot be
// counted here" (no PMU, virtualised away, unsupported), as opposed to
// resource or permission problems.
bool hardware_unavailable(int err) noexcept;

}  // namespace cpath::pmu
