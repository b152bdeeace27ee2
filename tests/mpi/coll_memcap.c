/* Collection test: the per-rank trace memory cap. 40000 iterations of 5 cheap local calls
   (an Iprobe that finds nothing, a Sendrecv and an Isend + Recv + Wait with itself) make
   200000 records, about 2 MB of trace, against mem=1M,chunk=64K.
   - default policy (spill): the run completes and every count is exact;
   - argument "stop" (run with on_full=stop): the run completes, recording stops at the cap,
     MPI_Init and MPI_Finalize are still recorded; the expectations are partial.
   checks/coll_memcap.py verifies store_state and the number of recorded events. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "coll_tally.h"

#define ITERS 40000

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int stop = argc > 1 && !strcmp(argv[1], "stop");
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  long sum = 0;
  for (int i = 0; i < ITERS; ++i) {
    int flag = 1, a = i, b = -1;
    MPI_Iprobe(MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a, 1, MPI_INT, r, 5, &b, 1, MPI_INT, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request rq;
    MPI_Isend(&a, 1, MPI_INT, r, 6, MPI_COMM_WORLD, &rq);
    MPI_Recv(&b, 1, MPI_INT, r, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    TALLY_CHECK(!flag && b == i, "iteration %d", i);
    sum += b;
  }
  if (r == 0) printf("coll_memcap: sum %ld, %d errors\n", sum, tally_errors);
  if (stop) {
    expect_call("MPI_Init", 1, 0);
    expect_call("MPI_Finalize", 1, 0);
    tally_append("expect", "# partial");
    tally_directive("store_state stopped");
  } else {
    tally_call("MPI_Init", 0);
    tally_calls_n("MPI_Iprobe", ITERS, 0);
    tally_calls_n("MPI_Sendrecv", ITERS, 4);
    tally_calls_n("MPI_Isend", ITERS, 4);
    tally_calls_n("MPI_Recv", ITERS, 0);
    tally_calls_n("MPI_Wait", ITERS, 0);
    for (int i = 0; i < ITERS; ++i) {
      tally_send_w("MPI_Sendrecv", r, 5, 4);
      tally_recv_w("MPI_Sendrecv", r, 5);
      tally_send_w("MPI_Isend", r, 6, 4);
      tally_recv_w("MPI_Recv", r, 6);
    }
    tally_call("MPI_Finalize", 0);
    tally_emit(1);
    tally_directive("store_state spilled");
  }
  tally_directive("calls %d", 2 + 5 * ITERS);
  MPI_Finalize();
  return tally_errors ? 1 : 0;
}
