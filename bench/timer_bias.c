/* Where POSIX CPU-time timer samples land, against where the CPU time went (issue 15's sampler,
 * pmu/timer_sampler.h). One thread alternates a computation of a fixed CPU time with a busy
 * wait of a fixed wall time (what an MPI call waiting for a message is), under a CPU-clock
 * timer like libcpath's, and prints each phase's CPU time, its share of the samples, and the
 * share of a CPU the thread ran on between samples (timer::cpu_share). Run it alone, then
 * beside busy processes on the same CPU (taskset -c 0 for all), to see the samples move into
 * the wait as the thread is descheduled.
 *
 *   bench/timer_bias [COMPUTE_MS=6] [WAIT_MS=4] [ITERATIONS=300] [INTERVAL_NS=1000000]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int phase;
static volatile double sink;
static long samples[2], interval_ns;
static double last_wall = -1, ran, cpu_w;

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void on_prof(int s, siginfo_t* si, void* uc) {
  (void)s;
  (void)uc;
  const double w = 1e-9 * interval_ns * (1 + si->si_overrun), t = now(CLOCK_MONOTONIC);
  samples[phase]++;
  if (last_wall >= 0) {
    const double g = t - last_wall;
    cpu_w += w;
    ran += g > w ? w * w / g : w;
  }
  last_wall = t;
}

__attribute__((noinline)) static void compute(long n) {
  double x = 1;
  for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char** argv) {
  const double compute_ms = argc > 1 ? atof(argv[1]) : 6, wait_ms = argc > 2 ? atof(argv[2]) : 4;
  const int iters = argc > 3 ? atoi(argv[3]) : 300;
  interval_ns = argc > 4 ? atol(argv[4]) : 1000000;
  double c = now(CLOCK_THREAD_CPUTIME_ID);
  compute(10000000);
  const long n = (long)(compute_ms * 1e-3 / ((now(CLOCK_THREAD_CPUTIME_ID) - c) / 1e7));
  struct sigaction sa = {0};
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, 0);
  struct sigevent ev = {0};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t id;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &id) != 0) return perror("timer_create"), 1;
  struct itimerspec its = {{interval_ns / 1000000000, interval_ns % 1000000000}, {interval_ns / 1000000000, interval_ns % 1000000000}};
  timer_settime(id, 0, &its, 0);
  double truth[2] = {0, 0};
  const double w0 = now(CLOCK_MONOTONIC);
  for (int i = 0; i < iters; i++) {
    const double c0 = now(CLOCK_THREAD_CPUTIME_ID);
    phase = 0;
    compute(n);
    const double c1 = now(CLOCK_THREAD_CPUTIME_ID), t0 = now(CLOCK_MONOTONIC);
    truth[0] += c1 - c0;
    phase = 1;
    while (now(CLOCK_MONOTONIC) - t0 < wait_ms * 1e-3) {
    }
    phase = 0;
    truth[1] += now(CLOCK_THREAD_CPUTIME_ID) - c1;
  }
  const double wall = now(CLOCK_MONOTONIC) - w0, total = truth[0] + truth[1], ns = samples[0] + samples[1];
  printf("| phase | CPU (s) | share of CPU | share of samples |\n|---|---:|---:|---:|\n");
  printf("| compute | %.3f | %.0f %% | %.0f %% |\n", truth[0], 100 * truth[0] / total, ns ? 100 * samples[0] / ns : 0);
  printf("| busy wait | %.3f | %.0f %% | %.0f %% |\n", truth[1], 100 * truth[1] / total, ns ? 100 * samples[1] / ns : 0);
  printf("CPU / wall %.2f; share of a CPU between samples (cpu_share) %.2f; %.0f samples\n", total / wall,
         cpu_w > 0 ? ran / cpu_w : 1.0, ns);
  return 0;
}
