/* Fixed work per rank, whatever the rank count (weak scaling): a ring halo exchange with a
   little compute and a periodic MPI_Allreduce. bench/scale.py runs it at growing rank counts to
   show that libcpath's analysis memory and time per rank do not grow with the job.
   Each rank also prints what MPI_Finalize cost it (libcpath's analysis runs there), measured
   from outside the library: "finalize rank R cpu_ns N rss_growth_bytes B" (CPU time of the
   process across the call; VmHWM after it minus VmRSS before it). bench/analysis_cost.py and
   the memory test (tests/mpi/checks/memory_peak.py) read these lines.
   usage: halo_bench [iterations] [compute_us] [allreduce_every (default 10; 1: every
   iteration, as an iterative solver's dot product)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile double sink;

/* VmRSS or VmHWM of this process in bytes (0 if unreadable). */
static long long status_bytes(const char* key) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long long kb = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, strlen(key))) kb = atoll(line + strlen(key) + 1);
  fclose(f);
  return kb * 1024;
}

static long long cpu_ns(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000LL + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000LL;
}

static void compute_us(int us) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  double x = 1.0;
  do {
    for (int i = 0; i < 200; ++i) x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3 < us);
  sink = x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int iters = argc > 1 ? atoi(argv[1]) : 500;
  const int us = argc > 2 ? atoi(argv[2]) : 20;
  const int every = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 10;
  const int left = (me + np - 1) % np, right = (me + 1) % np;
  double out[2] = {me, me}, in[2], sum = 0, local = 0;
  MPI_Request rq[4];
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    compute_us(us);
    MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&out[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    local += in[0] + in[1];
    if (it % every == 0) MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (me == 0) printf("halo_bench: %d iterations on %d ranks, Time in seconds = %.4f\n", iters, np, MPI_Wtime() - t0);
  const long long rss0 = status_bytes("VmRSS"), cpu0 = cpu_ns();
  MPI_Finalize();
  const long long cpu1 = cpu_ns(), hwm1 = status_bytes("VmHWM");
  printf("finalize rank %d cpu_ns %lld rss_growth_bytes %lld\n", me, cpu1 - cpu0, hwm1 > rss0 ? hwm1 - rss0 : 0);
  return 0;
}
