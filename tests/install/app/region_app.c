/* A user's MPI program with regions, built outside libcpath's source tree against an
   installed libcpath (find_package(libcpath) or pkg-config libcpath). Rank 1 computes 30 ms
   per iteration inside region "install-solve", the others 3 ms. */
#include <cpath.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static volatile double sink;
static void busy_ms(double ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  double x = 1.0;
  do {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
  sink = x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  cpath_phase("install-phase");
  double v = me, s = 0;
  for (int i = 0; i < 3; ++i) {
    cpath_region_begin("install-solve");
    busy_ms(me == 1 ? 30.0 : 3.0);
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    cpath_region_end("install-solve");
  }
  if (me == 0) printf("region_app: sum %g on %d ranks\n", s, np);
  MPI_Finalize();
  return 0;
}
