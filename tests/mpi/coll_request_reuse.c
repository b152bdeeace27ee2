/* Regression test: two Isends outstanding at the same time, completed by one Waitall.
   Open MPI 4.1 returns the same MPI_Request value (&ompi_request_empty) for every Isend that
   completes inline, so both Isend records carry the same request handle. The trace must
   still account for both sends as posted AND completed: the summary has to say
   "unresolved unknown_requests=0 never_completed=0".
   (Found by this test while replay/ops.cpp keyed live requests by handle in a map, so the
   second Isend replaced the first; fixed by "Request linking", commit d0d6323.) */
#include <mpi.h>
#include <stdio.h>

#include "coll_tally.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int partner = r ^ 1; /* pairs (0,1), (2,3) */
  int a = r, b = r + 100, x = -1, y = -1;
  if (partner < n) {
    if (r % 2 == 0) {
      MPI_Request rq[2];
      MPI_Isend(&a, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(&b, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      tally_calls_n("MPI_Isend", 2, 4);
      tally_call("MPI_Waitall", 0);
      tally_send_w("MPI_Isend", partner, 1, 4);
      tally_send_w("MPI_Isend", partner, 2, 4);
    } else {
      MPI_Recv(&x, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&y, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      tally_calls_n("MPI_Recv", 2, 0);
      tally_recv_w("MPI_Recv", partner, 1);
      tally_recv_w("MPI_Recv", partner, 2);
      TALLY_CHECK(x == partner && y == partner + 100, "data");
    }
  }
  if (r == 0) printf("coll_request_reuse done\n");
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  MPI_Finalize();
  return tally_errors ? 1 : 0;
}
