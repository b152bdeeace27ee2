/* Collection test: MPI_Pcontrol. Level 0 pauses recording, 1 resumes, other levels are only
   recorded. Calls made while paused must not be counted; a Pcontrol call is recorded when
   recording is on at the moment it is issued (Pcontrol(0) while recording) or right after it
   (Pcontrol(1)). A communicator duplicated while paused must still get its proper name when
   used after resuming, and MPI_Finalize is recorded even when called while paused.
   checks/coll_pcontrol.py verifies the recorded Pcontrol levels, in order. */
#include <mpi.h>
#include <stdio.h>

#include "coll_tally.h"

static int r, n, right, left;

static void ring(MPI_Comm c, const char* name, int tag, int recorded) {
  int v = -1;
  MPI_Sendrecv(&r, 1, MPI_INT, right, tag, &v, 1, MPI_INT, left, tag, c, MPI_STATUS_IGNORE);
  TALLY_CHECK(v == left, "ring tag %d", tag);
  if (!recorded) return;
  tally_call("MPI_Sendrecv", 4);
  tally_p2p("send", "MPI_Sendrecv", name, right, right, tag, 4);
  tally_p2p("recv", "MPI_Sendrecv", name, left, left, tag, 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  right = (r + 1) % n;
  left = (r + n - 1) % n;

  MPI_Comm before, during;
  MPI_Comm_dup(MPI_COMM_WORLD, &before); /* "world.dup0" */
  tally_call("MPI_Comm_dup", 0);
  MPI_Barrier(MPI_COMM_WORLD);
  tally_call("MPI_Barrier", 0);
  ring(MPI_COMM_WORLD, "world", 1, 1);

  MPI_Pcontrol(2); /* recorded, changes nothing */
  tally_call("MPI_Pcontrol", 0);
  ring(MPI_COMM_WORLD, "world", 2, 1);

  MPI_Pcontrol(0); /* recorded, then pauses */
  tally_call("MPI_Pcontrol", 0);
  /* ---- paused: nothing below is recorded ---- */
  ring(MPI_COMM_WORLD, "world", 3, 0);
  ring(before, "world.dup0", 4, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  int x = r, y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Request rq[2];
  MPI_Irecv(&y, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(&x, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  MPI_Comm_dup(MPI_COMM_WORLD, &during); /* not recorded, but tracked: "world.dup1" */
  MPI_Pcontrol(0); /* already paused: not recorded */
  MPI_Pcontrol(3); /* paused: not recorded */
  /* ---- resume ---- */
  MPI_Pcontrol(1); /* recorded */
  tally_call("MPI_Pcontrol", 0);
  MPI_Pcontrol(1); /* recorded */
  tally_call("MPI_Pcontrol", 0);
  ring(during, "world.dup1", 6, 1);
  ring(before, "world.dup0", 7, 1);
  ring(MPI_COMM_WORLD, "world", 8, 1);
  MPI_Comm_free(&during);
  MPI_Comm_free(&before);
  tally_calls_n("MPI_Comm_free", 2, 0);

  int errors = tally_errors, total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  if (r == 0) printf("coll_pcontrol: %d ranks, %d check failures, sum %d\n", n, total, y);
  /* pause again: MPI_Finalize is recorded all the same */
  MPI_Pcontrol(0);
  tally_call("MPI_Pcontrol", 0);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  tally_directive("pcontrol_levels 2 0 1 1 0");
  MPI_Finalize();
  return total ? 1 : 0;
}
