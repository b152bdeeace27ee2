/* A plugin for pmu_dlclose.c, built twice (PLUGIN_KERNEL names its one function): programs
   load, use and unload plugins while they run. */
#include <time.h>

static volatile double sink;

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Computes for `s` seconds of this thread's CPU time; returns the CPU time it used. */
__attribute__((noinline, visibility("default"))) double PLUGIN_KERNEL(double s) {
  const double c0 = cpu_now();
  double x = 1.0;
  while (cpu_now() - c0 < s)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
  return cpu_now() - c0;
}
