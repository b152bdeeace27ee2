// CPU-time weights and counter deltas computed from decoded samples,
// including the hardware group-read path this VM cannot exercise live.
#include "pmu/sample_builder.h"

#include <gtest/gtest.h>

namespace cpath::pmu {
namespace {

DecodedSample group_read(uint64_t time, uint64_t enabled, uint64_t running, uint64_t cycles,
                         uint64_t instructions) {
  DecodedSample d;
  d.ip = 0x1000 + time;
  d.tid = 42;
  d.time = time;
  d.period = 999;  // ignored for group reads
  d.has_read = true;
  d.read.nr = d.read.nr_in_record = 2;
  d.read.time_enabled = enabled;
  d.read.time_running = running;
  d.read.value[0] = cycles;
  d.read.value[1] = instructions;
  return d;
}

TEST(SampleBuilder, HardwareGroupDeltasPerSample) {
  SampleBuilder b(default_hardware_config(SamplingParams{}));
  Sample s1 = b.build(group_read(100, 1000000, 1000000, 3000000, 6000000));
  EXPECT_EQ(s1.time_ns, 100u);
  EXPECT_EQ(s1.tid, 42u);
  EXPECT_EQ(s1.ip, 0x1000u + 100u);
  EXPECT_EQ(s1.weight_ns, 1000000u);  // first sample: since the counters opened
  EXPECT_EQ(s1.cycles, 3000000u);
  EXPECT_EQ(s1.instructions, 6000000u);

  Sample s2 = b.build(group_read(200, 1500000, 1500000, 4000000, 7000000));
  EXPECT_EQ(s2.weight_ns, 500000u);
  EXPECT_EQ(s2.cycles, 1000000u);
  EXPECT_EQ(s2.instructions, 1000000u);
}

TEST(SampleBuilder, LostSamplesDoNotLoseCpuTime) {
  SampleBuilder b(default_hardware_config(SamplingParams{}));
  uint64_t total = 0;
  total += b.build(group_read(1, 1000, 1000, 10, 20)).weight_ns;
  // samples at enabled=2000 and 3000 were lost; the next one covers them
  total += b.build(group_read(4, 4000, 4000, 40, 80)).weight_ns;
  EXPECT_EQ(total, 4000u);
}

TEST(SampleBuilder, MultiplexedCountersAreScaledToEnabledTime) {
  SampleBuilder b(default_hardware_config(SamplingParams{}));
  b.build(group_read(1, 1000, 1000, 100, 100));
  // 2000 ns enabled but only 1000 ns counted: counts scale by 2.
  const Sample s = b.build(group_read(2, 3000, 2000, 600, 400));
  EXPECT_EQ(s.weight_ns, 2000u);
  EXPECT_EQ(s.cycles, 1000u);
  EXPECT_EQ(s.instructions, 600u);
}

TEST(SampleBuilder, SoftwareClockWeightIsThePeriod) {
  SampleBuilder b(software_fallback_config(SamplingParams{}));
  DecodedSample d;
  d.ip = 0x42;
  d.tid = 7;
  d.time = 55;
  d.period = 1000000;
  const Sample s = b.build(d);
  EXPECT_EQ(s.weight_ns, 1000000u);
  EXPECT_EQ(s.cycles, 0u);
  EXPECT_EQ(s.instructions, 0u);
  EXPECT_EQ(s.tid, 7u);
}

TEST(SampleBuilder, CountersAbsentFromTheGroupStayZero) {
  EventConfig c;
  std::string err;
  ASSERT_TRUE(user_event_config("cpu-clock+task-clock", SamplingParams{}, c, err)) << err;
  SampleBuilder b(c);
  const Sample s = b.build(group_read(1, 5000, 5000, 5000, 5000));
  EXPECT_EQ(s.weight_ns, 5000u);
  EXPECT_EQ(s.cycles, 0u);
  EXPECT_EQ(s.instructions, 0u);
}

TEST(SampleBuilder, CounterGoingBackwardsGivesZeroNotHuge) {
  SampleBuilder b(default_hardware_config(SamplingParams{}));
  b.build(group_read(1, 5000, 5000, 500, 500));
  const Sample s = b.build(group_read(2, 4000, 4000, 100, 100));
  EXPECT_EQ(s.weight_ns, 0u);
  EXPECT_EQ(s.cycles, 0u);
}

}  // namespace
}  // namespace cpath::pmu
