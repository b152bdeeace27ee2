/* Computation of a chosen length for the known-answer programs: a spinning loop (not a sleep),
   so the time is CPU the sampler can see and the path analysis counts as computation. */
#ifndef CPATH_TEST_BUSY_H
#define CPATH_TEST_BUSY_H
#include <time.h>

static volatile double busy_sink;

/* CLOCK_MONOTONIC: one clock for every rank of a host, so ranks can compare stamps. */
static inline double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline void compute_ms(double ms) {
  const double end = now_ms() + ms;
  double x = busy_sink;
  do {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  } while (now_ms() < end);
  busy_sink = x;
}

#endif
