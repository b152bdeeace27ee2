/* Collection test: a C program using every point-to-point flavour and the common
   collectives. Every call is tallied next to where it is made (coll_tally.h) and the totals
   are declared as expectations, which run_mpi_test.py compares with the recorded trace.
   Needs at least 2 ranks (ctest runs 4). Ring neighbours: right = r+1, left = r-1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_tally.h"

static int r, n, right, left;

static void fill(int* b, int count, int seed) {
  for (int i = 0; i < count; ++i) b[i] = seed * 1000 + i;
}
static int check(const int* b, int count, int seed) {
  for (int i = 0; i < count; ++i)
    if (b[i] != seed * 1000 + i) return 0;
  return 1;
}

/* Blocking sends of every mode around the ring. Even ranks send first, odd ranks receive
   first, so synchronous sends cannot deadlock. */
static void blocking_modes(void) {
  int sb[16], rb[16];
  MPI_Status st;
  /* MPI_Send / MPI_Recv, tag 1, 10 ints */
  fill(sb, 10, r);
  if (r % 2 == 0) {
    MPI_Send(sb, 10, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Recv(rb, 10, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(rb, 10, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(sb, 10, MPI_INT, right, 1, MPI_COMM_WORLD);
  }
  TALLY_CHECK(check(rb, 10, left), "Send/Recv data");
  tally_call("MPI_Send", 40);
  tally_call("MPI_Recv", 0);
  tally_send_w("MPI_Send", right, 1, 40);
  tally_recv_w("MPI_Recv", left, 1);

  /* MPI_Ssend, tag 2, 5 doubles */
  double ds[5] = {1, 2, 3, 4, (double)r}, dr[5];
  if (r % 2 == 0) {
    MPI_Ssend(ds, 5, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
    MPI_Recv(dr, 5, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(dr, 5, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st);
    MPI_Ssend(ds, 5, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
  }
  TALLY_CHECK(dr[4] == (double)left, "Ssend data");
  tally_call("MPI_Ssend", 40);
  tally_call("MPI_Recv", 0);
  tally_send_w("MPI_Ssend", right, 2, 40);
  tally_recv_w("MPI_Recv", left, 2);

  /* MPI_Bsend with an attached buffer (Buffer_attach/detach are recorded too), tag 3, 3 ints */
  int bsize = 3 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  void* bbuf = malloc((size_t)bsize);
  MPI_Buffer_attach(bbuf, bsize);
  fill(sb, 3, r + 10);
  MPI_Bsend(sb, 3, MPI_INT, right, 3, MPI_COMM_WORLD);
  MPI_Recv(rb, 3, MPI_INT, left, 3, MPI_COMM_WORLD, &st);
  TALLY_CHECK(check(rb, 3, left + 10), "Bsend data");
  MPI_Buffer_detach(&bbuf, &bsize);
  free(bbuf);
  tally_call("MPI_Buffer_attach", 0);
  tally_call("MPI_Buffer_detach", 0);
  tally_call("MPI_Bsend", 12);
  tally_call("MPI_Recv", 0);
  tally_send_w("MPI_Bsend", right, 3, 12);
  tally_recv_w("MPI_Recv", left, 3);

  /* MPI_Rsend: the receive is pre-posted, a barrier guarantees it, tag 4, 2 ints */
  MPI_Request rq;
  MPI_Irecv(rb, 2, MPI_INT, left, 4, MPI_COMM_WORLD, &rq);
  MPI_Barrier(MPI_COMM_WORLD);
  fill(sb, 2, r + 20);
  MPI_Rsend(sb, 2, MPI_INT, right, 4, MPI_COMM_WORLD);
  MPI_Wait(&rq, &st);
  TALLY_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 4 && check(rb, 2, left + 20), "Rsend data");
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Barrier", 0);
  tally_call("MPI_Rsend", 8);
  tally_call("MPI_Wait", 0);
  tally_recv_w("MPI_Irecv", left, 4);
  tally_send_w("MPI_Rsend", right, 4, 8);

  /* MPI_Sendrecv, tag 5, 4 ints right / from left */
  fill(sb, 4, r + 30);
  MPI_Sendrecv(sb, 4, MPI_INT, right, 5, rb, 4, MPI_INT, left, 5, MPI_COMM_WORLD, &st);
  TALLY_CHECK(check(rb, 4, left + 30), "Sendrecv data");
  tally_call("MPI_Sendrecv", 16);
  tally_send_w("MPI_Sendrecv", right, 5, 16);
  tally_recv_w("MPI_Sendrecv", left, 5);

  /* MPI_Sendrecv_replace, tag 6, 6 ints left / from right, status ignored */
  fill(rb, 6, r + 40);
  MPI_Sendrecv_replace(rb, 6, MPI_INT, left, 6, right, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  TALLY_CHECK(check(rb, 6, right + 40), "Sendrecv_replace data");
  tally_call("MPI_Sendrecv_replace", 24);
  tally_send_w("MPI_Sendrecv_replace", left, 6, 24);
  tally_recv_w("MPI_Sendrecv_replace", right, 6);
}

/* Non-blocking operations completed by every Wait/Test variant. */
static void nonblocking(void) {
  int sb[4][8], rb[4][8];
  MPI_Request rq[4];
  MPI_Status sts[4];
  int flag, idx, outcount, indices[4];

  /* Wait: tag 7, 8 ints */
  fill(sb[0], 8, r);
  MPI_Irecv(rb[0], 8, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 8, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
  MPI_Wait(&rq[0], &sts[0]);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  TALLY_CHECK(check(rb[0], 8, left), "Wait data");
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 32);
  tally_calls_n("MPI_Wait", 2, 0);
  tally_recv_w("MPI_Irecv", left, 7);
  tally_send_w("MPI_Isend", right, 7, 32);

  /* Waitall: tags 8 (to the right) and 9 (to the left), 1 and 2 ints */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 8, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(rb[1], 2, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 8, MPI_COMM_WORLD, &rq[2]);
  MPI_Isend(sb[1], 2, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[3]);
  MPI_Waitall(4, rq, sts);
  TALLY_CHECK(sts[0].MPI_SOURCE == left && sts[1].MPI_SOURCE == right && sts[1].MPI_TAG == 9, "Waitall statuses");
  tally_calls_n("MPI_Irecv", 2, 0);
  tally_call("MPI_Isend", 4);
  tally_call("MPI_Isend", 8);
  tally_call("MPI_Waitall", 0);
  tally_recv_w("MPI_Irecv", left, 8);
  tally_recv_w("MPI_Irecv", right, 9);
  tally_send_w("MPI_Isend", right, 8, 4);
  tally_send_w("MPI_Isend", left, 9, 8);

  /* Waitall with MPI_STATUSES_IGNORE: tag 19 */
  MPI_Irecv(rb[0], 3, MPI_INT, left, 19, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 3, MPI_INT, right, 19, MPI_COMM_WORLD, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 12);
  tally_call("MPI_Waitall", 0);
  tally_recv_w("MPI_Irecv", left, 19);
  tally_send_w("MPI_Isend", right, 19, 12);

  /* Waitany until both are done: tag 10, 1 int; plus a null request in the array */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 10, MPI_COMM_WORLD, &rq[0]);
  rq[1] = MPI_REQUEST_NULL;
  MPI_Isend(sb[0], 1, MPI_INT, right, 10, MPI_COMM_WORLD, &rq[2]);
  for (int done = 0; done < 2; ++done) {
    MPI_Waitany(3, rq, &idx, &sts[0]);
    tally_call("MPI_Waitany", 0);
    TALLY_CHECK(idx == 0 || idx == 2, "Waitany index %d", idx);
  }
  /* all null now: returns MPI_UNDEFINED, completes nothing */
  MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE);
  tally_call("MPI_Waitany", 0);
  TALLY_CHECK(idx == MPI_UNDEFINED, "Waitany on null requests");
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 10);
  tally_send_w("MPI_Isend", right, 10, 4);

  /* Waitsome until all four are done: tags 11 (right) and 12 (left), 2 ints */
  MPI_Irecv(rb[0], 2, MPI_INT, left, 11, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(rb[1], 2, MPI_INT, right, 12, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(sb[0], 2, MPI_INT, right, 11, MPI_COMM_WORLD, &rq[2]);
  MPI_Isend(sb[1], 2, MPI_INT, left, 12, MPI_COMM_WORLD, &rq[3]);
  for (int done = 0; done < 4;) {
    MPI_Waitsome(4, rq, &outcount, indices, sts);
    tally_call("MPI_Waitsome", 0);
    TALLY_CHECK(outcount != MPI_UNDEFINED && outcount > 0, "Waitsome outcount");
    if (outcount == MPI_UNDEFINED) break;
    done += outcount;
  }
  tally_calls_n("MPI_Irecv", 2, 0);
  tally_calls_n("MPI_Isend", 2, 8);
  tally_recv_w("MPI_Irecv", left, 11);
  tally_recv_w("MPI_Irecv", right, 12);
  tally_send_w("MPI_Isend", right, 11, 8);
  tally_send_w("MPI_Isend", left, 12, 8);

  /* Test loop: tag 20 */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 20, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 20);
  tally_send_w("MPI_Isend", right, 20, 4);
  for (int k = 0; k < 2; ++k) {
    flag = 0;
    while (!flag) {
      MPI_Test(&rq[k], &flag, &sts[0]);
      tally_call("MPI_Test", 0);
    }
  }

  /* Testall loop: tag 21 */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 21);
  tally_send_w("MPI_Isend", right, 21, 4);
  flag = 0;
  while (!flag) {
    MPI_Testall(2, rq, &flag, sts);
    tally_call("MPI_Testall", 0);
  }

  /* Testany loop: tag 22 */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 22, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 22, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 22);
  tally_send_w("MPI_Isend", right, 22, 4);
  for (int done = 0; done < 2;) {
    MPI_Testany(2, rq, &idx, &flag, &sts[0]);
    tally_call("MPI_Testany", 0);
    if (flag && idx != MPI_UNDEFINED) ++done;
  }

  /* Testsome loop: tag 23 */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 23, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 23, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 23);
  tally_send_w("MPI_Isend", right, 23, 4);
  for (int done = 0; done < 2;) {
    MPI_Testsome(2, rq, &outcount, indices, sts);
    tally_call("MPI_Testsome", 0);
    if (outcount != MPI_UNDEFINED) done += outcount;
  }

  /* Request_get_status polls without freeing, then Wait frees: tag 24 */
  MPI_Irecv(rb[0], 1, MPI_INT, left, 24, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(sb[0], 1, MPI_INT, right, 24, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Isend", 4);
  tally_recv_w("MPI_Irecv", left, 24);
  tally_send_w("MPI_Isend", right, 24, 4);
  flag = 0;
  while (!flag) {
    MPI_Request_get_status(rq[0], &flag, &sts[0]);
    tally_call("MPI_Request_get_status", 0);
  }
  MPI_Waitall(2, rq, sts);
  tally_call("MPI_Waitall", 0);
}

/* Persistent requests: Send_init/Recv_init, three rounds of Startall + Waitall and one
   round of Start + Wait, then Request_free. Tag 13, 3 ints. */
static void persistent(void) {
  int sb[3], rb[3];
  MPI_Request rq[2];
  MPI_Recv_init(rb, 3, MPI_INT, left, 13, MPI_COMM_WORLD, &rq[0]);
  MPI_Send_init(sb, 3, MPI_INT, right, 13, MPI_COMM_WORLD, &rq[1]);
  tally_call("MPI_Recv_init", 0);
  tally_call("MPI_Send_init", 12);
  for (int it = 0; it < 3; ++it) {
    fill(sb, 3, r + it);
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    TALLY_CHECK(check(rb, 3, left + it), "persistent data round %d", it);
    tally_call("MPI_Startall", 0);
    tally_call("MPI_Waitall", 0);
  }
  fill(sb, 3, r + 7);
  MPI_Start(&rq[0]);
  MPI_Start(&rq[1]);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  TALLY_CHECK(check(rb, 3, left + 7), "persistent data Start");
  tally_calls_n("MPI_Start", 2, 0);
  tally_calls_n("MPI_Wait", 2, 0);
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  tally_calls_n("MPI_Request_free", 2, 0);
  for (int i = 0; i < 4; ++i) {
    tally_send_w("MPI_Send_init", right, 13, 12);
    tally_recv_w("MPI_Recv_init", left, 13);
  }
}

/* Probe/Iprobe, Mprobe/Mrecv, Improbe/Imrecv, Request_free of an active send and Cancel of
   a receive that is never matched. */
static void probes_free_cancel(void) {
  int sb[8], rb[8];
  MPI_Status st;
  MPI_Request rq, sq;
  int flag;
  fill(sb, 8, r);

  /* Probe (tag 14, 5 ints) and Iprobe (tag 15, 1 int): small standard sends are eager. */
  MPI_Send(sb, 5, MPI_INT, right, 14, MPI_COMM_WORLD);
  MPI_Send(sb, 1, MPI_INT, right, 15, MPI_COMM_WORLD);
  tally_call("MPI_Send", 20);
  tally_call("MPI_Send", 4);
  tally_send_w("MPI_Send", right, 14, 20);
  tally_send_w("MPI_Send", right, 15, 4);
  MPI_Probe(left, 14, MPI_COMM_WORLD, &st);
  tally_call("MPI_Probe", 0);
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  TALLY_CHECK(cnt == 5 && st.MPI_SOURCE == left, "Probe count");
  MPI_Recv(rb, 5, MPI_INT, left, 14, MPI_COMM_WORLD, &st);
  tally_call("MPI_Recv", 0);
  tally_recv_w("MPI_Recv", left, 14);
  flag = 0;
  while (!flag) {
    MPI_Iprobe(left, 15, MPI_COMM_WORLD, &flag, &st);
    tally_call("MPI_Iprobe", 0);
  }
  MPI_Recv(rb, 1, MPI_INT, left, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  tally_call("MPI_Recv", 0);
  tally_recv_w("MPI_Recv", left, 15);

  /* Mprobe + Mrecv: tag 16, 7 ints. The matched probe is the receive. */
  MPI_Send(sb, 7, MPI_INT, right, 16, MPI_COMM_WORLD);
  tally_call("MPI_Send", 28);
  tally_send_w("MPI_Send", right, 16, 28);
  MPI_Message msg;
  MPI_Mprobe(left, 16, MPI_COMM_WORLD, &msg, &st);
  MPI_Mrecv(rb, 7, MPI_INT, &msg, &st);
  TALLY_CHECK(check(rb, 7, left) && st.MPI_TAG == 16, "Mrecv data");
  tally_call("MPI_Mprobe", 0);
  tally_call("MPI_Mrecv", 0);
  tally_recv_w("MPI_Mprobe", left, 16);

  /* Improbe loop + Imrecv + Wait: tag 17, 2 ints */
  MPI_Send(sb, 2, MPI_INT, right, 17, MPI_COMM_WORLD);
  tally_call("MPI_Send", 8);
  tally_send_w("MPI_Send", right, 17, 8);
  flag = 0;
  while (!flag) {
    MPI_Improbe(left, 17, MPI_COMM_WORLD, &flag, &msg, &st);
    tally_call("MPI_Improbe", 0);
  }
  MPI_Imrecv(rb, 2, MPI_INT, &msg, &rq);
  MPI_Wait(&rq, &st);
  TALLY_CHECK(check(rb, 2, left), "Imrecv data");
  tally_call("MPI_Imrecv", 0);
  tally_call("MPI_Wait", 0);
  tally_recv_w("MPI_Improbe", left, 17);

  /* Request_free of an active Isend (tag 18); the receive proves it was delivered. */
  MPI_Isend(sb, 4, MPI_INT, right, 18, MPI_COMM_WORLD, &sq);
  MPI_Request_free(&sq);
  MPI_Recv(rb, 4, MPI_INT, left, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  TALLY_CHECK(check(rb, 4, left), "freed Isend data");
  tally_call("MPI_Isend", 16);
  tally_call("MPI_Request_free", 0);
  tally_call("MPI_Recv", 0);
  tally_send_w("MPI_Isend", right, 18, 16);
  tally_recv_w("MPI_Recv", left, 18);

  /* Cancel of an Irecv nobody matches (tag 999), completed by Wait */
  MPI_Irecv(rb, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &rq);
  MPI_Cancel(&rq);
  MPI_Wait(&rq, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  TALLY_CHECK(cancelled, "Irecv not cancelled");
  tally_call("MPI_Irecv", 0);
  tally_call("MPI_Cancel", 0);
  tally_call("MPI_Wait", 0);
  tally_recv_w("MPI_Irecv", left, 999);
}

static void collectives(void) {
  int sb[64], rb[64], counts[64], displs[64], scounts[64], sdispls[64], rcounts[64], rdispls[64];
  MPI_Datatype stypes[64], rtypes[64];
  double d[8], e[8];
  long bytes;
  for (int i = 0; i < 64; ++i) sb[i] = r + i;

  MPI_Barrier(MPI_COMM_WORLD);
  tally_call("MPI_Barrier", 0);

  MPI_Bcast(sb, 10, MPI_INT, 0, MPI_COMM_WORLD);
  tally_call("MPI_Bcast", 40);
  TALLY_CHECK(sb[3] == 3, "Bcast data");

  for (int i = 0; i < 3; ++i) d[i] = r + i;
  MPI_Reduce(d, e, 3, MPI_DOUBLE, MPI_SUM, 1 % n, MPI_COMM_WORLD);
  tally_call("MPI_Reduce", 24);
  if (r == 1 % n) TALLY_CHECK(e[0] == n * (n - 1) / 2.0, "Reduce result");

  MPI_Allreduce(sb, rb, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 8);
  MPI_Allreduce(MPI_IN_PLACE, d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 8);

  /* Gather 2 ints to root 0 */
  MPI_Gather(sb, 2, MPI_INT, rb, 2, MPI_INT, 0, MPI_COMM_WORLD);
  tally_call("MPI_Gather", r == 0 ? 2L * 4 * n : 8);

  /* Gatherv: rank i sends i+1 ints to root 0 */
  bytes = 0;
  for (int i = 0; i < n; ++i) {
    counts[i] = i + 1;
    displs[i] = i * (i + 1) / 2;
    bytes += 4L * counts[i];
  }
  MPI_Gatherv(sb, r + 1, MPI_INT, rb, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  tally_call("MPI_Gatherv", r == 0 ? bytes : 4L * (r + 1));

  /* Scatter 3 ints from root 0; Scatterv i+1 ints to rank i from root n-1 */
  MPI_Scatter(sb, 3, MPI_INT, rb, 3, MPI_INT, 0, MPI_COMM_WORLD);
  tally_call("MPI_Scatter", r == 0 ? 12L * n : 12);
  MPI_Scatterv(sb, counts, displs, MPI_INT, rb, r + 1, MPI_INT, n - 1, MPI_COMM_WORLD);
  tally_call("MPI_Scatterv", r == n - 1 ? bytes : 4L * (r + 1));

  int mine = 100 + r;
  MPI_Allgather(&mine, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD);
  tally_call("MPI_Allgather", 4L * n);
  TALLY_CHECK(rb[n - 1] == 100 + n - 1, "Allgather data");
  MPI_Allgatherv(sb, r + 1, MPI_INT, rb, counts, displs, MPI_INT, MPI_COMM_WORLD);
  tally_call("MPI_Allgatherv", bytes);

  MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_WORLD);
  tally_call("MPI_Alltoall", 8L * n);

  /* Alltoallv: rank i sends 1 + (i+j)%3 ints to rank j (symmetric) */
  long vbytes = 0;
  int off = 0;
  for (int j = 0; j < n; ++j) {
    scounts[j] = rcounts[j] = 1 + (r + j) % 3;
    sdispls[j] = rdispls[j] = off;
    off += scounts[j];
    vbytes += 4L * rcounts[j];
  }
  MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
  tally_call("MPI_Alltoallv", vbytes);

  /* Alltoallw: one element to every rank, a double where (i+j) is odd, an int otherwise */
  long wbytes = 0;
  for (int j = 0; j < n; ++j) {
    scounts[j] = rcounts[j] = 1;
    stypes[j] = rtypes[j] = ((r + j) % 2) ? MPI_DOUBLE : MPI_INT;
    sdispls[j] = rdispls[j] = 8 * j; /* bytes */
    wbytes += ((r + j) % 2) ? 8 : 4;
  }
  double wsend[64], wrecv[64];
  memset(wsend, 0, sizeof wsend);
  MPI_Alltoallw(wsend, scounts, sdispls, stypes, wrecv, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  tally_call("MPI_Alltoallw", wbytes);

  /* Reduce_scatter: rank i gets i+1 ints */
  MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Reduce_scatter", bytes);
  MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Reduce_scatter_block", 8L * n);

  int one = 1, pre = -1;
  MPI_Scan(&one, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Scan", 4);
  TALLY_CHECK(pre == r + 1, "Scan result");
  MPI_Exscan(&one, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Exscan", 4);
  if (r > 0) TALLY_CHECK(pre == r, "Exscan result");

  /* Non-blocking collectives completed by Wait */
  MPI_Request rq;
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  tally_call("MPI_Ibarrier", 0);
  tally_call("MPI_Wait", 0);
  MPI_Iallreduce(sb, rb, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  tally_call("MPI_Iallreduce", 12);
  tally_call("MPI_Wait", 0);
  for (int i = 0; i < 5; ++i) d[i] = r;
  MPI_Ibcast(d, 5, MPI_DOUBLE, n - 2 >= 0 ? n - 2 : 0, MPI_COMM_WORLD, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  tally_call("MPI_Ibcast", 40);
  tally_call("MPI_Wait", 0);
  TALLY_CHECK(d[4] == (n - 2 >= 0 ? n - 2 : 0), "Ibcast data");
}

/* A 2-D periodic cart topology (no reordering, so cart ranks are world ranks):
   Neighbor_allgather (4 in-neighbours) and a Sendrecv along dimension 0 on it. */
static void topology(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(n, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  tally_call("MPI_Cart_create", 0);
  int sb = r, rb[4];
  MPI_Neighbor_allgather(&sb, 1, MPI_INT, rb, 1, MPI_INT, cart);
  tally_call("MPI_Neighbor_allgather", 4L * 4);
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  int got = -1;
  MPI_Sendrecv(&sb, 1, MPI_INT, dst, 30, &got, 1, MPI_INT, src, 30, cart, MPI_STATUS_IGNORE);
  TALLY_CHECK(got == src, "cart Sendrecv data");
  tally_call("MPI_Sendrecv", 4);
  /* The cart communicator is made by the first communicator-creating call on the world
     (names: tools/cpath_read.cpp). */
  const char* name = "world#0:0";
  tally_p2p("send", "MPI_Sendrecv", name, dst, dst, 30, 4);
  tally_p2p("recv", "MPI_Sendrecv", name, src, src, 30, 0);
  MPI_Comm_free(&cart);
  tally_call("MPI_Comm_free", 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  right = (r + 1) % n;
  left = (r + n - 1) % n;

  blocking_modes();
  nonblocking();
  persistent();
  probes_free_cancel();
  collectives();
  topology();

  int errors = tally_errors, total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  if (r == 0) printf("coll_c_p2p: %d ranks, %d check failures\n", n, total);
  tally_call("MPI_Finalize", 0);
  /* Every request posted is completed and every completion matches a posted request:
     "unresolved unknown_requests=0 never_completed=0". (The Waitall/Waitsome with two
     outstanding Isends above share Open MPI's one completed-request handle; see
     coll_request_reuse.) */
  tally_emit(1);
  /* single records, for checks/coll_events.py: roots and communicators of rooted collectives */
  tally_directive("event MPI_Init aux=-1");
  tally_directive("event MPI_Bcast comm=world root=0 bytes=40");
  tally_directive("event MPI_Reduce comm=world root=%d bytes=24", 1 % n);
  tally_directive("event MPI_Ibcast comm=world root=%d bytes=40", n - 2 >= 0 ? n - 2 : 0);
  tally_directive("event MPI_Neighbor_allgather comm=world#0:0 bytes=16");
  tally_directive("event MPI_Scatterv comm=world root=%d", n - 1);
  MPI_Finalize();
  return total ? 1 : 0;
}
