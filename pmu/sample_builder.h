// Turns decoded PERF_RECORD_SAMPLEs of one thread's ring into Samples with
// CPU-time weights and per-sample counter deltas.
#pragma once

#include "pmu/event_config.h"
#include "pmu/perf_record_decoder.h"
#include "pmu/sample.h"

namespace cpath::pmu {

// One instance per ring (i.e. per monitored thread): group reads are
// cumulative per thread, so deltas are only meaningful within one ring.
//
// Weights (see README.md):
//  - software clock leader alone (weight_from_period): weight_ns = the
//    sample's period, which for cpu-clock/task-clock is in nanoseconds;
//  - otherwise (group read): weight_ns = growth of time_enabled since this
//    thread's previous sample, and cycles/instructions = growth of those
//    counters, scaled by enabled/running when the kernel multiplexed the
//    group. Because the values are cumulative, samples lost in between make
//    the next sample heavier instead of losing CPU time.
class SampleBuilder {
 public:
  explicit SampleBuilder(const EventConfig& config) noexcept
      : weight_from_period_(config.weight_from_period),
        cycles_index_(config.cycles_index),
        instructions_index_(config.instructions_index) {}

  // chain_begin/chain_len are left 0: the caller owns callchain storage.
  Sample build(const DecodedSample& d) noexcept;

 private:
  bool weight_from_period_;
  int cycles_index_;
  int instructions_index_;
  ReadValues prev_;  // zero-initialised: counters start at 0 when opened
};

}  // namespace cpath::pmu
