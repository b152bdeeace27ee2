/* Per-call cost of the region markers of include/cpath.h next to a cheap wrapped MPI call,
   measured inside the application: run it with libcpath preloaded and without (the stub's
   no-ops); bench/region_overhead.py does both, alternating, and subtracts.
   usage: region_overhead [iterations [pattern]]   (1 rank is enough; pattern: run only that one,
          e.g. under valgrind --tool=callgrind to count instructions per call)
   prints "<pattern> <ns per call>":
     region_same      begin/end of one literal name (the usual case: the per-thread cache hits)
     region_8names    begin/end cycling over 8 names
     region_buffer    begin/end of names written into one reused buffer (the cache checks the
                      text, so a reused address with a new name is not mistaken for the old one)
     allreduce_self   MPI_Allreduce of one double on MPI_COMM_SELF */
#include <cpath.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long iters = argc > 1 ? atol(argv[1]) : 2000000;
  static const char* names[8] = {"solve", "halo", "reduce", "io", "setup", "x_sweep", "y_sweep", "z_sweep"};
  char buf[32];
  double t;
  const char* only = argc > 2 ? argv[2] : NULL;
#define RUN(name) if (!only || !strcmp(only, name))

  RUN("region_same") {
  t = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    cpath_region_begin("solve");
    cpath_region_end("solve");
  }
  printf("region_same %.1f\n", (MPI_Wtime() - t) * 1e9 / (2.0 * iters));
  }

  RUN("region_8names") {
  t = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    cpath_region_begin(names[i & 7]);
    cpath_region_end(names[i & 7]);
  }
  printf("region_8names %.1f\n", (MPI_Wtime() - t) * 1e9 / (2.0 * iters));
  }

  RUN("region_buffer") {
  t = MPI_Wtime();
  for (long i = 0; i < iters; ++i) {
    snprintf(buf, sizeof buf, "%s", names[i & 1]);
    cpath_region_begin(buf);
    cpath_region_end(buf);
  }
  printf("region_buffer %.1f\n", (MPI_Wtime() - t) * 1e9 / (2.0 * iters));
  }

  RUN("allreduce_self") {
  double x = 1, y;
  t = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
  printf("allreduce_self %.1f\n", (MPI_Wtime() - t) * 1e9 / iters);
  }
  MPI_Finalize();
  return 0;
}
