// The one clock of libcpath: CLOCK_MONOTONIC_RAW nanoseconds. The PMU sampler stamps samples
// with the same clock (perf_event_attr.use_clockid), so samples can be placed on the path.
// On x86-64 with an invariant TSC the per-call path reads the TSC (cheaper than the vDSO
// call) and finalize converts ticks to CLOCK_MONOTONIC_RAW with two calibration points.
#pragma once
#include <cstdint>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace cpath {

extern bool g_clock_uses_tsc;

inline int64_t monotonic_raw_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline uint64_t ticks() {
#if defined(__x86_64__)
  if (__builtin_expect(g_clock_uses_tsc, 1)) return __rdtsc();
#endif
  return static_cast<uint64_t>(monotonic_raw_ns());
}

// A pair of simultaneous readings of the tick counter and CLOCK_MONOTONIC_RAW.
struct ClockPoint {
  uint64_t tick = 0;
  int64_t ns = 0;
};

// Linear map ticks -> CLOCK_MONOTONIC_RAW ns, from two calibration points. For tests it can
// also distort the clock on purpose (option skew_ns / drift_ppm): everything the rank measures,
// including the clock-alignment ping-pongs, then sees the distorted clock.
struct TickModel {
  uint64_t tick0 = 0;
  int64_t ns0 = 0;
  double ns_per_tick = 1.0;
  int64_t inject_skew_ns = 0;
  double inject_drift = 0;  // fraction, e.g. 1e-4 = 100 ppm
  int64_t to_ns(uint64_t t) const {
    return inject(ns0 + static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(t - tick0)) * ns_per_tick));
  }
  // Applies the test distortion to a CLOCK_MONOTONIC_RAW reading (PMU sample times).
  int64_t inject(int64_t ns) const {
    if (!inject_skew_ns && inject_drift == 0) return ns;
    return ns + inject_skew_ns + static_cast<int64_t>(static_cast<double>(ns - ns0) * inject_drift);
  }
};

// Decides between TSC and clock_gettime (option clock=tsc|monotonic|auto).
void clock_select(const char* mode);
// Takes a calibration point (best of several bracketed readings).
ClockPoint clock_point();
TickModel make_tick_model(const ClockPoint& a, const ClockPoint& b);

}  // namespace cpath
