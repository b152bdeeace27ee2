/* Dynamic processes (issue 14): the job spawns 2 children of the same program.
   dyn_spawn exchange  rank 0 of the parent sends to each child and receives its answer over the
                       intercommunicator; both sides disconnect
   dyn_spawn quiet     the same spawn and disconnect, without any message
   The parent declares its calls (expect.h); the children are a job of their own, with their own
   report next to the parent's (checks/dyn_spawn.py reads both). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const char* mode = argc > 1 ? argv[1] : "exchange";
  const int exchange = !strcmp(mode, "exchange");
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (parent == MPI_COMM_NULL) {
    MPI_Comm inter;
    char* args[] = {(char*)mode, NULL};
    MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    expect_partial();
    expect_call("MPI_Comm_spawn", 1, 0);
    expect_call("MPI_Comm_get_parent", 1, 0);
    if (exchange && me == 0) {
      int sum = 0;
      for (int c = 0; c < 2; ++c) {
        int v = 10 + c, w = 0;
        MPI_Send(&v, 1, MPI_INT, c, 1, inter);
        MPI_Recv(&w, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE);
        sum += w;
      }
      printf("parent got %d from its children\n", sum);
      expect_call("MPI_Send", 2, 8);
    }
    MPI_Comm_disconnect(&inter);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    if (exchange) {
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
      v *= 2;
      MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
    }
    MPI_Comm_disconnect(&parent);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
