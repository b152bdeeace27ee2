/* Known answer for inclusive time (callchain=1): one rank runs slow_phase each iteration,
   which does a little work of its own and calls slow_kernel for most of its time; every rank
   runs fast_kernel, then all meet in MPI_Allreduce. On the critical path slow_phase's
   inclusive time (its own + slow_kernel's) must rank above slow_kernel's, while the flat table
   has slow_kernel on top and slow_phase far below. */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

/* Called by each kernel so that none is a leaf: GCC gives leaf functions no frame pointer
   even with -fno-omit-frame-pointer, and the kernel's frame-pointer walk then skips the
   leaf's caller. */
__attribute__((noinline)) static void store(double x) { sink = x; }

__attribute__((noinline)) static double fast_kernel(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  store(x);
  return x;
}

__attribute__((noinline)) static double slow_kernel(long n) {
  double x = 2.0;
  for (long i = 0; i < n; ++i) x = x * 0.9999999 + 2e-9;
  store(x);
  return x;
}

__attribute__((noinline)) static double slow_phase(long n) {
  double x = 3.0;
  for (long i = 0; i < n / 10; ++i) x = x * 0.9999998 + 3e-9; /* its own 10% */
  sink = x;
  return x + slow_kernel(n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const long t = 4000000;
  const int slow = np - 1;
  double v = 0, s = 0;
  for (int it = 0; it < 15; ++it) {
    v += fast_kernel(t);
    if (me == slow) v += slow_phase(2 * t);
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  sink = s;
  if (me == 0) printf("callchain app done\n");
  MPI_Finalize();
  return 0;
}
