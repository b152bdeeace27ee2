#include "clock.h"

#include <cstring>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cpath {

bool g_clock_uses_tsc = false;

static bool cpu_has_invariant_tsc() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1u;
#else
  return false;
#endif
}

void clock_select(const char* mode) {
  if (mode && std::strcmp(mode, "monotonic") == 0) {
    g_clock_uses_tsc = false;
  } else {
    g_clock_uses_tsc = cpu_has_invariant_tsc();
  }
}

ClockPoint clock_point() {
  ClockPoint best;
  uint64_t best_spread = ~0ull;
  for (int i = 0; i < 7; ++i) {
    const uint64_t a = ticks();
    const int64_t ns = monotonic_raw_ns();
    const uint64_t b = ticks();
    if (b - a < best_spread) {
      best_spread = b - a;
      best.tick = a + (b - a) / 2;
      best.ns = ns;
    }
  }
  if (!g_clock_uses_tsc) best.tick = static_cast<uint64_t>(best.ns);
  return best;
}

TickModel make_tick_model(const ClockPoint& a, const ClockPoint& b) {
  TickModel m;
  m.tick0 = a.tick;
  m.ns0 = a.ns;
  if (g_clock_uses_tsc && b.tick > a.tick && b.ns > a.ns)
    m.ns_per_tick = static_cast<double>(b.ns - a.ns) / static_cast<double>(b.tick - a.tick);
  else
    m.ns_per_tick = 1.0;
  return m;
}

}  // namespace cpath
