/* Rank 2 sleeps 0.3 s before MPI_Init (its rank read from the launcher's environment): the
   start-up figures must name it as the rank everyone waited for, with >= 0.3 s before
   MPI_Init, and start-up must be on the critical path (checks/comm_startup.py). */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static int launcher_rank(void) {
  const char* names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* v = getenv(names[i]);
    if (v) return atoi(v);
  }
  return -1;
}

int main(int argc, char** argv) {
  if (launcher_rank() == 2) usleep(300000);
  MPI_Init(&argc, &argv);
  int me;
  double x = 1, y = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
