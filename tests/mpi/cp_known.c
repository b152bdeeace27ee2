/* Known-answer workloads for the critical path.
   cp_known imbalance   one rank computes 12x longer before every MPI_Allreduce (120 ms vs 10 ms,
                        a margin that survives 4 ranks sharing 2 cores on a busy machine)
   cp_known pipeline    one sweep: rank r receives from r-1, computes, sends to r+1
   cp_known late_sender rank 0 posts a receive early, rank 1 computes 60 ms before sending
   cp_known fence       rank 1 computes 60 ms before MPI_Win_fence (a collective on a window)
   cp_known fileio      rank 1 computes 60 ms before MPI_File_write_at_all (collective I/O) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "busy.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "imbalance";
  double v = me, s = 0;
  if (!strcmp(mode, "imbalance")) {
    const int slow = np > 2 ? 2 : np - 1;
    for (int it = 0; it < 8; ++it) {
      compute_ms(me == slow ? 120.0 : 10.0);
      MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  } else if (!strcmp(mode, "pipeline")) {
    if (me > 0) MPI_Recv(&v, 1, MPI_DOUBLE, me - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    compute_ms(10.0);
    v += 1;
    if (me < np - 1) MPI_Send(&v, 1, MPI_DOUBLE, me + 1, 5, MPI_COMM_WORLD);
    s = v;
  } else if (!strcmp(mode, "late_sender")) {
    if (me == 0) MPI_Recv(&v, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (me == 1) {
      compute_ms(60.0);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
    }
    if (me == 0) compute_ms(5.0);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(mode, "fence")) {
    int buf = 0;
    MPI_Win w;
    MPI_Win_create(&buf, sizeof buf, sizeof buf, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    if (me == 1) compute_ms(60.0);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
  } else if (!strcmp(mode, "fileio")) {
    int buf[4] = {me, me, me, me};
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "cp_known_fileio.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (me == 1) compute_ms(60.0);
    MPI_File_write_at_all(fh, (MPI_Offset)me * sizeof buf, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("cp_known %s done\n", mode);
  MPI_Finalize();
  return 0;
}
