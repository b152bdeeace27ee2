/* Prints its arguments, one per line between brackets, from rank 0: shows that a launcher
   passed the application's arguments through untouched. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0)
    for (int i = 1; i < argc; ++i) printf("arg[%s]\n", argv[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
