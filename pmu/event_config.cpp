#include "pmu/event_config.h"

// libpfm's perf_event.h declares its own copy of the kernel structs unless
// the kernel header came first (it did, via event_config.h).
#include <perfmon/pfmlib_perf_event.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>

namespace cpath::pmu {
namespace {

perf_event_attr base_attr() {
  perf_event_attr a;
  std::memset(&a, 0, sizeof(a));
  a.size = sizeof(a);
  // User-level only: works at perf_event_paranoid=2 and keeps samples in
  // the application's code, which is what the hotspot tables are about.
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  // Every timestamp of the tool is CLOCK_MONOTONIC_RAW; samples must carry
  // the same clock to be placed on the critical-path intervals.
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC_RAW;
  return a;
}

bool is_software_clock(const perf_event_attr& a) {
  return a.type == PERF_TYPE_SOFTWARE &&
         (a.config == PERF_COUNT_SW_CPU_CLOCK || a.config == PERF_COUNT_SW_TASK_CLOCK);
}

bool is_hardware_type(uint32_t type) {
  // Dynamic PMUs (cpu, cpu_core, ...) have types above PERF_TYPE_MAX.
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW ||
         type >= PERF_TYPE_MAX;
}

// Turns a list of bare event encodings into a sampling group: leader samples,
// members only count, sample_type/read_format chosen from the shape.
void finish_config(EventConfig& c, const SamplingParams& p) {
  c.weight_from_period = c.events.size() == 1 && is_software_clock(c.events[0].attr);
  uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  uint64_t read_format = 0;
  if (!c.weight_from_period) {
    // Group read on every sample even for a single event: the cumulative
    // values and time_enabled make per-sample deltas exact even when samples
    // are lost or throttled in between.
    sample_type |= PERF_SAMPLE_READ;
    read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  }
  if (p.callchain) sample_type |= PERF_SAMPLE_CALLCHAIN;

  c.cycles_index = c.instructions_index = -1;
  bool any_hw = false;
  for (size_t i = 0; i < c.events.size(); ++i) {
    perf_event_attr& a = c.events[i].attr;
    any_hw = any_hw || is_hardware_type(a.type);
    if (a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_CPU_CYCLES && c.cycles_index < 0)
      c.cycles_index = static_cast<int>(i);
    if (a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_INSTRUCTIONS &&
        c.instructions_index < 0)
      c.instructions_index = static_cast<int>(i);
    a.read_format = read_format;
    if (i == 0) {
      a.sample_type = sample_type;
      a.disabled = 1;  // enabled as a whole group once all members joined
      if (p.period > 0) {
        a.freq = 0;
        a.sample_period = p.period;
      } else {
        a.freq = 1;
        a.sample_freq = p.freq_hz > 0 ? p.freq_hz : 1000;
      }
      if (p.callchain) a.exclude_callchain_kernel = 1;
      if (p.wakeup_bytes > 0) {
        a.watermark = 1;
        a.wakeup_watermark = p.wakeup_bytes;
      }
    } else {
      a.sample_type = 0;
      a.sample_period = 0;
      a.freq = 0;
      a.disabled = 0;
    }
  }
  c.source = any_hw ? EventSource::hardware : EventSource::software;
  c.layout = RecordLayout{sample_type, read_format};
}

EventSpec named(const char* name, uint32_t type, uint64_t config) {
  EventSpec e{name, base_attr()};
  e.attr.type = type;
  e.attr.config = config;
  return e;
}

int pfm_init_result() {
  static int result = PFM_ERR_NOINIT;
  static std::once_flag once;
  std::call_once(once, [] { result = pfm_initialize(); });
  return result;
}

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

const char* to_string(EventSource s) noexcept {
  switch (s) {
    case EventSource::hardware: return "hardware";
    case EventSource::software: return "software";
    case EventSource::none: break;
  }
  return "none";
}

std::string EventConfig::names() const {
  std::string out;
  for (const auto& e : events) {
    if (!out.empty()) out += '+';
    out += e.name;
  }
  return out;
}

EventConfig default_hardware_config(const SamplingParams& p) {
  EventConfig c;
  c.events.push_back(named("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES));
  c.events.push_back(named("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS));
  finish_config(c, p);
  return c;
}

EventConfig software_fallback_config(const SamplingParams& p) {
  EventConfig c;
  c.events.push_back(named("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK));
  finish_config(c, p);
  return c;
}

bool encode_event_name(const std::string& name, perf_event_attr& attr, std::string& error) noexcept {
  try {
    const int init = pfm_init_result();
    if (init != PFM_SUCCESS) {
      error = std::string("libpfm4 initialisation failed: ") + pfm_strerror(init);
      return false;
    }
    perf_event_attr enc;
    std::memset(&enc, 0, sizeof(enc));
    pfm_perf_encode_arg_t arg;
    std::memset(&arg, 0, sizeof(arg));
    arg.attr = &enc;
    arg.size = sizeof(arg);
    const int r = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (r != PFM_SUCCESS) {
      error = "unknown or invalid event '" + name + "': " + pfm_strerror(r);
      return false;
    }
    attr.type = enc.type;
    attr.config = enc.config;
    attr.config1 = enc.config1;
    attr.config2 = enc.config2;
    attr.precise_ip = enc.precise_ip;
    return true;
  } catch (...) {
    error = "out of memory while encoding event '" + name + "'";
    return false;
  }
}

bool user_event_config(const std::string& list, const SamplingParams& p, EventConfig& out,
                       std::string& error) noexcept {
  try {
    EventConfig c;
    size_t start = 0;
    while (true) {
      const size_t plus = list.find('+', start);
      const std::string name =
          trim(list.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
      if (name.empty()) {
        error = "empty event name in event list '" + list + "' (names are separated by '+')";
        return false;
      }
      EventSpec e{name, base_attr()};
      if (!encode_event_name(name, e.attr, error)) return false;
      c.events.push_back(std::move(e));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    if (c.events.size() > ReadValues::kMaxValues) {
      error = "too many events in '" + list + "' (at most " +
              std::to_string(ReadValues::kMaxValues) + ")";
      return false;
    }
    finish_config(c, p);
    out = std::move(c);
    return true;
  } catch (...) {
    error = "out of memory while parsing event list";
    return false;
  }
}

bool hardware_unavailable(int err) noexcept {
  return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL;
}

}  // namespace cpath::pmu
