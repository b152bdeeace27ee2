/* Collection test: MPI_THREAD_MULTIPLE. The main thread duplicates MPI_COMM_WORLD once per
   worker thread (before starting them), then NT pthreads per rank run point-to-point rings
   on their own communicator concurrently: Issend/Irecv + Waitall, Isend/Irecv + Waitall,
   Send/Recv, Sendrecv and a Probe, ITERS times each. (Issend requests have distinct handles;
   Open MPI gives every Isend that completes inline one shared handle, in several threads at
   once here -- both must be accounted for: "unresolved ... 0".) The tallies are per thread and summed after the join, so the
   expected counts are exact; checks/coll_threads.py verifies the trace has NT + 1 threads.

   Arguments: "quick" runs fewer iterations (used under helgrind); "pcontrol" also makes every
   worker call MPI_Pcontrol(1) -- legal under MPI_THREAD_MULTIPLE, recording stays on -- in
   each iteration, so the Pcontrol path runs concurrently (coll_threads_helgrind_pcontrol);
   "iters=N" sets the iterations (coll_memcap_spill_nodump_threads: enough to spill several chunks of
   every thread).

   Each worker's last calls are unsuccessful MPI_Iprobes, two tags in turn and one more: polls
   that merge into a cycle whose run is still open when the thread exits, so only the flush at
   MPI_Finalize writes how many there were. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_tally.h"

#define NT 3
#define POLLS 50

static int r, n, iters = 50, pcontrol_mode = 0;
static MPI_Comm comms[NT];

typedef struct {
  int t;
  long issend, isend, irecv, waitall, send, recv, sendrecv, probe, pcontrol, iprobe;
  int errors;
} work_t;

static void* worker(void* arg) {
  work_t* w = (work_t*)arg;
  MPI_Comm c = comms[w->t];
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  const int tag = 10 * w->t;
  int out[4], in[4];
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < 4; ++i) out[i] = r * 1000 + w->t * 100 + i;
    /* Issend/Irecv + Waitall, 4 ints */
    MPI_Request rq[2];
    MPI_Irecv(in, 4, MPI_INT, left, tag, c, &rq[0]);
    MPI_Issend(out, 4, MPI_INT, right, tag, c, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    w->irecv++, w->issend++, w->waitall++;
    if (in[3] != left * 1000 + w->t * 100 + 3) w->errors++;
    /* Isend/Irecv + Waitall, 2 ints, the other way round */
    MPI_Irecv(in, 2, MPI_INT, right, tag + 4, c, &rq[0]);
    MPI_Isend(out, 2, MPI_INT, left, tag + 4, c, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    w->irecv++, w->isend++, w->waitall++;
    if (in[1] != right * 1000 + w->t * 100 + 1) w->errors++;
    /* Send/Recv, 1 int: even ranks send first */
    if (r % 2 == 0) {
      MPI_Send(out, 1, MPI_INT, right, tag + 1, c);
      MPI_Recv(in, 1, MPI_INT, left, tag + 1, c, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 1, MPI_INT, left, tag + 1, c, MPI_STATUS_IGNORE);
      MPI_Send(out, 1, MPI_INT, right, tag + 1, c);
    }
    w->send++, w->recv++;
    /* Sendrecv, 2 ints, the other way round */
    MPI_Sendrecv(out, 2, MPI_INT, left, tag + 2, in, 2, MPI_INT, right, tag + 2, c, MPI_STATUS_IGNORE);
    w->sendrecv++;
    if (in[1] != right * 1000 + w->t * 100 + 1) w->errors++;
    /* Probe then Recv, 3 ints */
    MPI_Send(out, 3, MPI_INT, right, tag + 3, c);
    MPI_Status st;
    MPI_Probe(left, tag + 3, c, &st);
    MPI_Recv(in, 3, MPI_INT, left, tag + 3, c, MPI_STATUS_IGNORE);
    w->send++, w->probe++, w->recv++;
    if (pcontrol_mode) {
      MPI_Pcontrol(1);
      w->pcontrol++;
    }
  }
  /* Nobody sends tags tag+7 and tag+8. */
  for (int k = 0; k < 2 * POLLS + 1; ++k) {
    int flag = 0;
    MPI_Iprobe(left, tag + 7 + k % 2, c, &flag, MPI_STATUS_IGNORE);
    w->iprobe++;
    if (flag) w->errors++;
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  tally_call("MPI_Init_thread", 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "quick")) iters = 5;
    if (!strcmp(argv[i], "pcontrol")) pcontrol_mode = 1;
    if (!strncmp(argv[i], "iters=", 6)) iters = atoi(argv[i] + 6);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (r == 0) printf("coll_threads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Finalize();
    return 1;
  }
  for (int t = 0; t < NT; ++t) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    tally_call("MPI_Comm_dup", 0);
  }
  pthread_t th[NT];
  work_t w[NT];
  memset(w, 0, sizeof w);
  for (int t = 0; t < NT; ++t) {
    w[t].t = t;
    pthread_create(&th[t], NULL, worker, &w[t]);
  }
  for (int t = 0; t < NT; ++t) pthread_join(th[t], NULL);

  const int right = (r + 1) % n, left = (r + n - 1) % n;
  for (int t = 0; t < NT; ++t) {
    /* the dups of world, named after their parent in creation order */
    char name[32];
    snprintf(name, sizeof name, "world.dup%d", t);
    const int tag = 10 * t;
    tally_calls_n("MPI_Irecv", w[t].irecv, 0);
    tally_calls_n("MPI_Issend", w[t].issend, 16);
    tally_calls_n("MPI_Isend", w[t].isend, 8);
    tally_calls_n("MPI_Waitall", w[t].waitall, 0);
    tally_calls_n("MPI_Recv", w[t].recv, 0);
    tally_calls_n("MPI_Sendrecv", w[t].sendrecv, 8);
    tally_calls_n("MPI_Probe", w[t].probe, 0);
    tally_calls_n("MPI_Pcontrol", w[t].pcontrol, 0);
    tally_calls_n("MPI_Iprobe", w[t].iprobe, 0);
    for (long i = 0; i < iters; ++i) {
      tally_call("MPI_Send", 4);
      tally_call("MPI_Send", 12);
      tally_p2p("recv", "MPI_Irecv", name, left, left, tag, 0);
      tally_p2p("send", "MPI_Issend", name, right, right, tag, 16);
      tally_p2p("recv", "MPI_Irecv", name, right, right, tag + 4, 0);
      tally_p2p("send", "MPI_Isend", name, left, left, tag + 4, 8);
      tally_p2p("send", "MPI_Send", name, right, right, tag + 1, 4);
      tally_p2p("recv", "MPI_Recv", name, left, left, tag + 1, 0);
      tally_p2p("send", "MPI_Sendrecv", name, left, left, tag + 2, 8);
      tally_p2p("recv", "MPI_Sendrecv", name, right, right, tag + 2, 0);
      tally_p2p("send", "MPI_Send", name, right, right, tag + 3, 12);
      tally_p2p("recv", "MPI_Recv", name, left, left, tag + 3, 0);
    }
    TALLY_CHECK(w[t].errors == 0 && w[t].send == 2L * iters, "thread %d: %d data errors", t, w[t].errors);
  }
  for (int t = 0; t < NT; ++t) {
    MPI_Comm_free(&comms[t]);
    tally_call("MPI_Comm_free", 0);
  }
  int errors = tally_errors, total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  if (r == 0) printf("coll_threads: %d ranks x %d threads, %d check failures\n", n, NT, total);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  tally_directive("threads %d", NT + 1);
  tally_directive("event MPI_Init_thread aux=%d", provided);
  MPI_Finalize();
  return total ? 1 : 0;
}
