/* Known answers for the communication matrices and size histograms (issue 10). Every rank
   sends, counted at the sender in world ranks whatever communicator carried it:
     to its right neighbour (world ring):   3 x 100 B  MPI_Send      on a dup of MPI_COMM_WORLD
                                            1 x 12 B   MPI_Sendrecv  on MPI_COMM_WORLD
                                            1 x 0 B    MPI_Send      on MPI_COMM_WORLD
     to its left neighbour:                 2 x 5000 B MPI_Isend     on the dup
     to its right neighbour in the split    1 x 70000 B MPI_Isend
     (colour = world rank % 2):             2 x 256 B  MPI_Send_init + 2 MPI_Start
     to MPI_PROC_NULL:                      1 x 10 B   (moves nothing: not counted)
   and calls 5 x MPI_Allreduce (64 B) on the dup, 1 x MPI_Bcast (16 B, root 0) on the split,
   2 x MPI_Barrier on MPI_COMM_WORLD (plus MPI_Comm_dup and MPI_Comm_split on it).
   checks/comm_ring.py derives the expected matrix, histograms and collective rows from this. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  int hme, hn;
  MPI_Comm_rank(half, &hme);
  MPI_Comm_size(half, &hn);
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  char* out = calloc(1, 1 << 17);
  char* in = calloc(1, 1 << 17);
  MPI_Request rq[8];

  for (int k = 0; k < 3; ++k) MPI_Irecv(in + 100 * k, 100, MPI_CHAR, left, 1, dup, &rq[k]);
  for (int k = 0; k < 3; ++k) MPI_Send(out, 100, MPI_CHAR, right, 1, dup);
  MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);

  for (int k = 0; k < 2; ++k) MPI_Irecv(in + 5000 * k, 5000, MPI_CHAR, right, 2, dup, &rq[k]);
  for (int k = 0; k < 2; ++k) MPI_Isend(out, 5000, MPI_CHAR, left, 2, dup, &rq[2 + k]);
  MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);

  MPI_Sendrecv(out, 12, MPI_CHAR, right, 3, in, 12, MPI_CHAR, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  MPI_Irecv(in, 0, MPI_CHAR, left, 4, MPI_COMM_WORLD, &rq[0]);
  MPI_Send(out, 0, MPI_CHAR, right, 4, MPI_COMM_WORLD);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

  MPI_Send(out, 10, MPI_CHAR, MPI_PROC_NULL, 7, MPI_COMM_WORLD);

  if (hn > 1) {
    const int hright = (hme + 1) % hn, hleft = (hme + hn - 1) % hn;
    MPI_Irecv(in, 70000, MPI_CHAR, hleft, 5, half, &rq[0]);
    MPI_Isend(out, 70000, MPI_CHAR, hright, 5, half, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Request ps, pr;
    MPI_Send_init(out, 256, MPI_CHAR, hright, 6, half, &ps);
    MPI_Recv_init(in, 256, MPI_CHAR, hleft, 6, half, &pr);
    for (int k = 0; k < 2; ++k) {
      MPI_Start(&pr);
      MPI_Start(&ps);
      MPI_Wait(&ps, MPI_STATUS_IGNORE);
      MPI_Wait(&pr, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
  }

  double v[8] = {0}, r[8];
  for (int k = 0; k < 5; ++k) MPI_Allreduce(v, r, 8, MPI_DOUBLE, MPI_SUM, dup);
  MPI_Bcast(in, 16, MPI_CHAR, 0, half);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
