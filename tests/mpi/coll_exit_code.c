/* Collection test: the application ends with an exit code of its own (3) after MPI_Finalize.
   run_mpi_test.py requires the same exit code (and output) with and without libcpath; the
   recorded calls are checked as usual. */
#include <mpi.h>
#include <stdio.h>

#include "coll_tally.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  int r, n, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Allreduce(&r, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  MPI_Barrier(MPI_COMM_WORLD);
  tally_call("MPI_Barrier", 0);
  if (r == 0) printf("coll_exit_code: sum %d, exiting with 3\n", v);
  fflush(stdout);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  MPI_Finalize();
  return 3;
}
