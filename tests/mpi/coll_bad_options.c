/* Collection test: bad option values. The ctest entries give LIBCPATH_OPTIONS with bad
   values and unknown keys; the application must run to completion with the defaults and be
   recorded as usual. To let checks/coll_bad_options.py count libcpath's warnings, each rank
   sends its own stderr to $CPATH_TEST_EXPECT_DIR/stderr.<rank>.txt before MPI_Init (the rank
   comes from the launcher's environment: Open MPI's OMPI_COMM_WORLD_RANK or PMI_RANK). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "coll_tally.h"

static void capture_stderr(void) {
  const char* dir = getenv("CPATH_TEST_EXPECT_DIR");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMI_RANK");
  if (!dir || !*dir || !rank) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/stderr.%s.txt", dir, rank);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  dup2(fd, 2);
  close(fd);
}

int main(int argc, char** argv) {
  capture_stderr();
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  int v = -1;
  MPI_Sendrecv(&r, 1, MPI_INT, right, 1, &v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  tally_call("MPI_Sendrecv", 4);
  tally_send_w("MPI_Sendrecv", right, 1, 4);
  tally_recv_w("MPI_Sendrecv", left, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  tally_call("MPI_Barrier", 0);
  if (r == 0) printf("coll_bad_options: got %d\n", v);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  MPI_Finalize();
  return v == left ? 0 : 1;
}
