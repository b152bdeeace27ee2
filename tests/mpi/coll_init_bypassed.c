/* MPI initialised behind libcpath's back (PMPI_Init): nothing can be recorded, and libcpath
   must say so in one line rather than stay silent. "wrapped": MPI_Finalize comes through the
   wrapper, which tells; "pmpi": PMPI_Finalize too, told at exit (MPICH only). */
#include <mpi.h>
#include <string.h>

int main(int argc, char** argv) {
  PMPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1 && strcmp(argv[1], "pmpi") == 0)
    PMPI_Finalize();
  else
    MPI_Finalize();
  return 0;
}
