// perf_event_attr sets: the hardware default group, the software fallback,
// and libpfm4 encoding of user-named events.
#include "pmu/event_config.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <ctime>

namespace cpath::pmu {
namespace {

void expect_common(const perf_event_attr& a) {
  EXPECT_EQ(a.size, sizeof(perf_event_attr));
  EXPECT_EQ(a.exclude_kernel, 1u);
  EXPECT_EQ(a.exclude_hv, 1u);
  EXPECT_EQ(a.use_clockid, 1u);
  EXPECT_EQ(a.clockid, CLOCK_MONOTONIC_RAW);
  EXPECT_EQ(a.inherit, 0u);
}

TEST(EventConfig, DefaultHardwareGroupIsCyclesLeaderWithInstructions) {
  const EventConfig c = default_hardware_config(SamplingParams{});
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.source, EventSource::hardware);
  EXPECT_EQ(c.names(), "cycles+instructions");
  EXPECT_EQ(c.cycles_index, 0);
  EXPECT_EQ(c.instructions_index, 1);
  EXPECT_FALSE(c.weight_from_period);

  const perf_event_attr& lead = c.events[0].attr;
  expect_common(lead);
  EXPECT_EQ(lead.type, static_cast<uint32_t>(PERF_TYPE_HARDWARE));
  EXPECT_EQ(lead.config, static_cast<uint64_t>(PERF_COUNT_HW_CPU_CYCLES));
  EXPECT_EQ(lead.freq, 1u);
  EXPECT_EQ(lead.sample_freq, 1000u);
  EXPECT_EQ(lead.disabled, 1u);
  const uint64_t want_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                             PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
  EXPECT_EQ(lead.sample_type, want_type);
  const uint64_t want_fmt =
      PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  EXPECT_EQ(lead.read_format, want_fmt);
  EXPECT_EQ(c.layout.sample_type, want_type);
  EXPECT_EQ(c.layout.read_format, want_fmt);

  const perf_event_attr& member = c.events[1].attr;
  expect_common(member);  // the kernel rejects a group whose members use another clock
  EXPECT_EQ(member.type, static_cast<uint32_t>(PERF_TYPE_HARDWARE));
  EXPECT_EQ(member.config, static_cast<uint64_t>(PERF_COUNT_HW_INSTRUCTIONS));
  EXPECT_EQ(member.sample_period, 0u);
  EXPECT_EQ(member.freq, 0u);
  EXPECT_EQ(member.disabled, 0u);
  EXPECT_EQ(member.read_format, want_fmt);
}

TEST(EventConfig, PeriodCallchainAndWakeupAreApplied) {
  SamplingParams p;
  p.period = 2000003;
  p.callchain = true;
  p.wakeup_bytes = 131072;
  const EventConfig c = default_hardware_config(p);
  const perf_event_attr& lead = c.events[0].attr;
  EXPECT_EQ(lead.freq, 0u);
  EXPECT_EQ(lead.sample_period, 2000003u);
  EXPECT_TRUE(lead.sample_type & PERF_SAMPLE_CALLCHAIN);
  EXPECT_EQ(lead.exclude_callchain_kernel, 1u);
  EXPECT_EQ(lead.watermark, 1u);
  EXPECT_EQ(lead.wakeup_watermark, 131072u);
  EXPECT_TRUE(c.layout.sample_type & PERF_SAMPLE_CALLCHAIN);
}

TEST(EventConfig, SoftwareFallbackIsCpuClockWeightedByPeriod) {
  SamplingParams p;
  p.freq_hz = 0;  // means the default frequency
  const EventConfig c = software_fallback_config(p);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.source, EventSource::software);
  EXPECT_EQ(c.names(), "cpu-clock");
  EXPECT_TRUE(c.weight_from_period);
  EXPECT_EQ(c.cycles_index, -1);
  EXPECT_EQ(c.instructions_index, -1);
  const perf_event_attr& a = c.events[0].attr;
  expect_common(a);
  EXPECT_EQ(a.type, static_cast<uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(a.config, static_cast<uint64_t>(PERF_COUNT_SW_CPU_CLOCK));
  EXPECT_EQ(a.freq, 1u);
  EXPECT_EQ(a.sample_freq, 1000u);
  EXPECT_EQ(a.sample_type,
            PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD);
  EXPECT_EQ(a.read_format, 0u);
}

TEST(EventConfig, LibpfmEncodesCycles) {
  perf_event_attr a{};
  std::string err;
  ASSERT_TRUE(encode_event_name("cycles", a, err)) << err;
  EXPECT_EQ(a.type, static_cast<uint32_t>(PERF_TYPE_HARDWARE));
  EXPECT_EQ(a.config, static_cast<uint64_t>(PERF_COUNT_HW_CPU_CYCLES));
}

TEST(EventConfig, InvalidNameIsAClearErrorNotACrash) {
  perf_event_attr a{};
  a.type = 77;
  std::string err;
  EXPECT_FALSE(encode_event_name("no_such_event_xyz", a, err));
  EXPECT_NE(err.find("no_such_event_xyz"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos);
  EXPECT_EQ(a.type, 77u);  // untouched on failure

  EventConfig c;
  EXPECT_FALSE(user_event_config("cycles+no_such_event_xyz", SamplingParams{}, c, err));
  EXPECT_NE(err.find("no_such_event_xyz"), std::string::npos) << err;
  EXPECT_TRUE(c.events.empty());
}

TEST(EventConfig, UserListSyntax) {
  EventConfig c;
  std::string err;
  ASSERT_TRUE(user_event_config(" cycles + instructions ", SamplingParams{}, c, err)) << err;
  EXPECT_EQ(c.names(), "cycles+instructions");
  EXPECT_EQ(c.source, EventSource::hardware);
  EXPECT_EQ(c.cycles_index, 0);
  EXPECT_EQ(c.instructions_index, 1);
  EXPECT_EQ(c.events[0].attr.exclude_kernel, 1u);
  EXPECT_EQ(c.events[0].attr.use_clockid, 1u);

  ASSERT_TRUE(user_event_config("instructions+cycles", SamplingParams{}, c, err)) << err;
  EXPECT_EQ(c.cycles_index, 1);
  EXPECT_EQ(c.instructions_index, 0);

  // A lone software clock keeps the cheap period-weighted layout.
  ASSERT_TRUE(user_event_config("task-clock", SamplingParams{}, c, err)) << err;
  EXPECT_EQ(c.source, EventSource::software);
  EXPECT_TRUE(c.weight_from_period);

  // Two software events form a group read with time-based weights.
  ASSERT_TRUE(user_event_config("cpu-clock+task-clock", SamplingParams{}, c, err)) << err;
  EXPECT_EQ(c.source, EventSource::software);
  EXPECT_FALSE(c.weight_from_period);
  EXPECT_TRUE(c.layout.sample_type & PERF_SAMPLE_READ);

  EXPECT_FALSE(user_event_config("", SamplingParams{}, c, err));
  EXPECT_FALSE(user_event_config("cycles++instructions", SamplingParams{}, c, err));
  EXPECT_NE(err.find("empty event name"), std::string::npos) << err;
  EXPECT_FALSE(user_event_config("cycles+", SamplingParams{}, c, err));
  EXPECT_FALSE(user_event_config("cycles+cycles+cycles+cycles+cycles+cycles+cycles+cycles+cycles",
                                 SamplingParams{}, c, err));
  EXPECT_NE(err.find("too many"), std::string::npos) << err;
}

TEST(EventConfig, HardwareUnavailableErrnos) {
  EXPECT_TRUE(hardware_unavailable(ENOENT));
  EXPECT_TRUE(hardware_unavailable(EOPNOTSUPP));
  EXPECT_TRUE(hardware_unavailable(ENODEV));
  EXPECT_TRUE(hardware_unavailable(EINVAL));
  EXPECT_FALSE(hardware_unavailable(EACCES));
  EXPECT_FALSE(hardware_unavailable(EMFILE));
}

}  // namespace
}  // namespace cpath::pmu
