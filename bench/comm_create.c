/* Communicator creation loop (issue 16): N times MPI_Comm_split + MPI_Comm_free, then N times
   MPI_Comm_dup + MPI_Comm_free, as MPICH's comm/ctxsplit and comm/ctxalloc do. Prints the
   seconds each loop took on rank 0 (the slowest rank's time):
     split_free_s <s>
     dup_free_s <s>
   Usage: comm_create [N]   (default 2000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = argc > 1 ? atoi(argv[1]) : 2000;
  double t[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &c);
    MPI_Comm_free(&c);
  }
  t[0] = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_free(&c);
  }
  t[1] = MPI_Wtime() - t0;
  double worst[2];
  MPI_Reduce(t, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) printf("split_free_s %.6f\ndup_free_s %.6f\n", worst[0], worst[1]);
  MPI_Finalize();
  return 0;
}
