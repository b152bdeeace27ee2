/* A worker thread that blocks every signal, as thread pools and I/O threads often do, computes
   on rank 0 while the main thread waits for it before each MPI_Barrier: its work is on the
   critical path. The CPU-time timer's SIGPROF never reaches it, so it has no sample; the report
   must say how much CPU went unsampled, and why, rather than show tables without it. Argument
   "open": the same worker with signals open (it must then be sampled). The worker's own CPU
   clock is the truth, printed on stderr. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile double sink;
static volatile int go = 0, done = 0, stop = 0;
static int block = 1;
static double worker_cpu = 0;

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void worker_kernel(double s) {
  const double end = cpu_now() + s;
  double x = 1.0;
  while (cpu_now() < end)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static void* worker(void* arg) {
  (void)arg;
  if (block) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
  }
  const double c0 = cpu_now();
  while (!stop) {
    if (go) {
      worker_kernel(0.06);
      go = 0;
      __sync_synchronize();
      done = 1;
    } else {
      sched_yield();
    }
  }
  worker_cpu = cpu_now() - c0;
  return NULL;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  block = !(argc > 1 && !strcmp(argv[1], "open"));
  pthread_t th;
  if (me == 0) pthread_create(&th, NULL, worker, NULL);
  for (int it = 0; it < 6; ++it) {
    if (me == 0) {
      done = 0;
      __sync_synchronize();
      go = 1;
      while (!done) sched_yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (me == 0) {
    stop = 1;
    pthread_join(th, NULL);
    fprintf(stderr, "pmu_blocked_thread worker_cpu_s %.6f\n", worker_cpu);
  }
  MPI_Finalize();
  return 0;
}
