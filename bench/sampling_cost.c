/* What sampling costs an MPI rank, in two pure loops (no MPI inside the timed part):
 *   yield N    - N sched_yield() calls: with more ranks than CPUs every call is a context
 *                switch, the case where per-thread perf events are switched too
 *   compute N  - N iterations of a dependent arithmetic loop: the cost of taking samples
 * Prints "<mode>_ns <wall ns per iteration, slowest rank>" and "<mode>_cpu_ns <CPU ns (user +
 * system) per iteration, mean over ranks>": on a loaded machine the wall figure of the yield
 * loop mostly measures other processes, while the CPU figure still counts the work a switch
 * costs the rank (perf event switching is charged to the task being switched).
 * bench/sampling_cost.py runs it with and without libcpath and each sampler. */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);  /* the whole process: a sampler's drain thread counts too */
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const char* mode = argc > 1 ? argv[1] : "yield";
  const long n = argc > 2 ? atol(argv[2]) : 1000000;
  volatile unsigned long x = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = now(), c0 = cpu();
  if (!strcmp(mode, "yield")) {
    for (long i = 0; i < n; ++i) sched_yield();
  } else {
    for (long i = 0; i < n; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  }
  double t = (now() - t0) * 1e9 / (double)n, worst = 0, c = (cpu() - c0) * 1e9 / (double)n, csum = 0;
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&c, &csum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("%s_ns %.2f\n%s_cpu_ns %.2f\n", mode, worst, mode, csum / np);
  MPI_Finalize();
  return 0;
}
