/* Placement known answer (issue 10), for 8 ranks: heavy traffic inside {0,2,4,6} and inside
   {1,3,5,7} (every member sends 4 x 64 KiB to every other member of its group), light traffic
   around the world ring (100 B to the right neighbour). With ranks_per_node=4 by slot (nodes
   {0..3} and {4..7}) 16 heavy directed pairs cross nodes; the suggestion must put each group
   on one node, leaving only the 8 light messages between nodes (checks/comm_placement.py).
   A periodic 1-D Cartesian communicator with reorder=1 is created too; rank 0 prints how many
   ranks MPI moved, which the report's topology entry must repeat. */
#include <stdio.h>
#include <mpi.h>
#include <stdlib.h>

enum { kChunk = 65536, kChunks = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char* out = calloc(1, kChunk);
  char* in = calloc((size_t)np * kChunks, kChunk);
  MPI_Request* rq = malloc(sizeof(MPI_Request) * (size_t)np * kChunks * 2);
  int n = 0;
  for (int p = 0; p < np; ++p) {
    if (p == me || p % 2 != me % 2) continue;
    for (int k = 0; k < kChunks; ++k)
      MPI_Irecv(in + ((size_t)p * kChunks + k) * kChunk, kChunk, MPI_CHAR, p, k, MPI_COMM_WORLD, &rq[n++]);
  }
  for (int p = 0; p < np; ++p) {
    if (p == me || p % 2 != me % 2) continue;
    for (int k = 0; k < kChunks; ++k) MPI_Isend(out, kChunk, MPI_CHAR, p, k, MPI_COMM_WORLD, &rq[n++]);
  }
  MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
  MPI_Sendrecv(out, 100, MPI_CHAR, (me + 1) % np, 99, in, 100, MPI_CHAR, (me + np - 1) % np, 99, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Comm cart;
  int dims[1] = {np}, periods[1] = {1}, cme, moved = 0, diff;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
  MPI_Comm_rank(cart, &cme);
  diff = cme != me;
  MPI_Reduce(&diff, &moved, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("cart moved %d\n", moved);
  MPI_Comm_free(&cart);
  free(rq);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
