/* Known answer for the critical-path hotspots: every rank runs fast_kernel for time T each
   iteration, one rank also runs slow_kernel for 2T, then all meet in MPI_Allreduce. Summed over
   ranks fast_kernel costs more CPU, but only slow_kernel lengthens the run. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;

/* Fixed amounts of work (not of wall time): with more ranks than cores the CPU cost stays
   what the program asks for. The store to `sink` keeps the compiler from treating the kernels
   as pure functions and calling them once for the whole loop. */
__attribute__((noinline)) static double fast_kernel(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
  return x;
}

__attribute__((noinline)) static double slow_kernel(long n) {
  double x = 2.0;
  for (long i = 0; i < n; ++i) x = x * 0.9999999 + 2e-9;
  sink = x;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  /* The process's own CPU time while the sampler runs (MPI_Init to MPI_Finalize), for the
     rate-limit checks: measured by the kernel, not from the samples' weights. */
  struct timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  const long t = 4000000; /* ~12 ms of one core here */
  const int slow = np - 1;
  double v = 0, s = 0;
  for (int it = 0; it < 15; ++it) {
    v += fast_kernel(t);
    if (me == slow) v += slow_kernel(2 * t);
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  sink = s;
  if (me == 0) printf("hotspots app done\n");
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  fprintf(stderr, "pmu_hotspots_app cpu_s %d %.6f\n", me,
          (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9);
  MPI_Finalize();
  return 0;
}
