/* A job that ends before MPI_Finalize (issue 16, crash-time traces). Every rank runs a few
   rounds of ring exchanges, a split and collectives, then:
     crash_app abort   rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in MPI_Recv
     crash_app segv    rank 1 writes through a null pointer while the others wait in MPI_Barrier
     crash_app exit    rank 1 calls exit(5) without MPI_Finalize while the others wait in MPI_Barrier
     crash_app ok      everyone finishes normally
   Rank 1 prints "rank 1 reached the end" on stdout just before; checks/crash.py reads the
   partial traces. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

static void work(long n) {
  double x = 1.0;
  for (long i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* how = argc > 1 ? argv[1] : "ok";
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  for (int it = 0; it < 20; ++it) {
    int v = me, got = -1;
    MPI_Sendrecv(&v, 1, MPI_INT, (me + 1) % np, it, &got, 1, MPI_INT, (me + np - 1) % np, it, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    work(me == 1 ? 3000000 : 200000); /* rank 1 holds the path */
    double s = 0, d = me;
    MPI_Allreduce(&d, &s, 1, MPI_DOUBLE, MPI_SUM, half);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) {
    printf("rank 1 reached the end\n");
    fflush(stdout);
    if (!strcmp(how, "abort")) MPI_Abort(MPI_COMM_WORLD, 3);
    if (!strcmp(how, "segv")) {
      volatile int* p = NULL;
      *p = 42;
    }
    if (!strcmp(how, "exit")) exit(5);
  }
  if (strcmp(how, "ok") != 0) {
    if (me == 0) {
      int x;
      MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
