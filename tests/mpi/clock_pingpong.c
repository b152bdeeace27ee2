/* Ping-pong on one host: ranks 2k and 2k+1 exchange small messages back and forth (blocking
   and non-blocking), with an MPI_Allreduce every 500 round trips. Every receive is matched, so
   every receive ending before its send began would be a clock-condition violation.
     clock_pingpong [round_trips]   (default 1500: 4 ranks give 6000 receives) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = argc > 1 ? atoi(argv[1]) : 1500;
  const int peer = me ^ 1;
  double v = me, s = 0;
  long received = 0;
  if (peer < np) {
    for (int i = 0; i < n; ++i) {
      if (i % 2 == 0) {
        if (me % 2 == 0) {
          MPI_Send(&v, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
          MPI_Recv(&v, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(&v, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(&v, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
        }
      } else {
        MPI_Request r[2];
        double in = 0;
        MPI_Irecv(&in, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        v = in + 1;
      }
      received += 1;
      if (i % 500 == 499) MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  if (peer >= np)
    for (int i = 499; i < n; i += 500) MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  long total = 0;
  MPI_Reduce(&received, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("clock_pingpong: %ld receives\n", total);
  MPI_Finalize();
  return 0;
}
