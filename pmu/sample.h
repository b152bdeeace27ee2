// One PMU sample as kept by the sampler and consumed by hotspot analysis.
#pragma once

#include <cstdint>

namespace cpath::pmu {

struct Sample {
  uint64_t time_ns = 0;       // CLOCK_MONOTONIC_RAW, the tool's single clock
  uint64_t ip = 0;            // user-space instruction pointer
  uint32_t tid = 0;
  uint32_t chain_begin = 0;   // index into the callchain store
  uint32_t chain_len = 0;     // 0 when callchains were not requested
  uint64_t cycles = 0;        // cycles since this thread's previous sample; 0 if not counted
  uint64_t instructions = 0;  // instructions since previous sample; 0 if not counted
  uint64_t weight_ns = 0;     // CPU time this sample stands for (see README.md)
};

}  // namespace cpath::pmu
