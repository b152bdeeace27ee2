/* A small MPI-using library standing in for PETSc (tests/mpi/callpath_app.c): the application
   calls MPI only through it. */
#include <mpi.h>

double mylib_sum(double v, MPI_Comm comm) {
  double s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
  return s * 1.0000001; /* work after the call: no tail call, the library's frame stays */
}

double mylib_shift(double v, MPI_Comm comm) {
  int me, np;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  double got = 0;
  MPI_Sendrecv(&v, 1, MPI_DOUBLE, (me + 1) % np, 4, &got, 1, MPI_DOUBLE, (me + np - 1) % np, 4, comm,
               MPI_STATUS_IGNORE);
  return got * 1.0000001;
}
