/* Known-answer programs for the wait states (issue 9, tests/mpi/checks/ws_known.py): each mode
   builds one pattern with a chosen delay D (argv[2] ms, default 100) on one rank; the control
   modes ("<mode>_control") run the same calls with the delay moved so the pattern cannot
   arise. The waiting rank named in the check computes 100 ms longer at the end, so its
   MPI_Finalize is the latest and the critical path runs back through its wait. Markers
   "WS:<name>" name the lines the check expects as call sites. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* The delay sleeps rather than spins: 4 ranks on 2 cores (and other jobs) would otherwise
   stretch it by however long the scheduler keeps a spinning rank off the CPU, and the built
   answer would no longer be known. Time outside MPI is computation to libcpath either way. */
static void compute_ms(double ms) {
  struct timespec a, now, rest;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double left = ms - ((now.tv_sec - a.tv_sec) * 1e3 + (now.tv_nsec - a.tv_nsec) * 1e-6);
    if (left <= 0) break;
    rest.tv_sec = (time_t)(left / 1e3);
    rest.tv_nsec = (long)((left - rest.tv_sec * 1e3) * 1e6);
    nanosleep(&rest, NULL);
  }
}

/* barrier_completion: SIGALRM's handler holds the rank inside MPI_Barrier (nanosleep and
   clock_gettime are async-signal-safe) until absolute time alarm_until. */
static struct timespec alarm_until;
static void hold_until(int sig) {
  (void)sig;
  struct timespec now, rest;
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double left = (alarm_until.tv_sec - now.tv_sec) * 1e3 + (alarm_until.tv_nsec - now.tv_nsec) * 1e-6;
    if (left <= 0) break;
    rest.tv_sec = (time_t)(left / 1e3);
    rest.tv_nsec = (long)((left - rest.tv_sec * 1e3) * 1e6);
    nanosleep(&rest, NULL);
  }
}

/* nxn_completion: a reduction operator that computes D in its second call on one rank. Open
   MPI's recursive-doubling MPI_Allreduce (small messages, 4 ranks) calls it twice per rank, the
   second time after the rank's partial sums went out: that rank alone leaves D late. */
static int slow_rank = -1, slow_calls = 0, my_rank = 0;
static double slow_ms = 0;
static void slow_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((double*)inout)[i] += ((double*)in)[i];
  if (++slow_calls == 2 && my_rank == slow_rank) compute_ms(slow_ms);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  char mode[64];
  snprintf(mode, sizeof mode, "%s", argc > 1 ? argv[1] : "late_sender");
  const double D = argc > 2 ? atof(argv[2]) : 100.0;
  char* c = strstr(mode, "_control");
  const int control = c != NULL;
  if (c) *c = 0;
  int last = 0;  /* the rank that finishes last */
  /* Start together: ranks leave MPI_Init (and libcpath's start-up work after it) at different
     times; the patterns below must owe nothing to that. */
  MPI_Barrier(MPI_COMM_WORLD);
  static char big[1 << 20];
  double v = me, s = 0;
  if (!strcmp(mode, "late_sender")) {
    /* rank 0 waits in MPI_Recv for rank 1, which computes D first */
    if (me == 0) {
      if (control) compute_ms(1.5 * D);
      MPI_Recv(&v, 1, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:ls_recv */
    }
    if (me == 1) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD); /* WS:ls_send */
    }
  } else if (!strcmp(mode, "test_wait")) {
    /* rank 0 polls its Irecv with MPI_Test for D/2, then blocks in MPI_Wait before rank 1,
       which computes D, sends: by rule 5 the wait began at the first poll, so the Late Sender
       loses D (from the first MPI_Test), not D/2 (from MPI_Wait). No MPI can complete the
       receive before the send is posted, so the answer does not depend on the library. */
    if (me == 0) {
      MPI_Request r;
      int flag = 0;
      if (control) compute_ms(1.5 * D);
      MPI_Irecv(&v, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, &r);
      for (int k = 0; !flag && k < (int)(D / 2); ++k) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (!flag) compute_ms(1.0);
      }
      if (!flag) MPI_Wait(&r, MPI_STATUS_IGNORE); /* WS:tw_wait */
    }
    if (me == 1) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD); /* WS:tw_send */
    }
  } else if (!strcmp(mode, "late_receiver") || !strcmp(mode, "eager_send") || !strcmp(mode, "ssend_small")) {
    /* rank 0 sends at once, rank 1 computes D before receiving: a rendezvous (1 MiB) or
       synchronous send waits (Late Receiver), an eager one (64 bytes) does not */
    const int n = !strcmp(mode, "late_receiver") ? (int)sizeof big : 64;
    if (me == 0) {
      if (control) compute_ms(1.5 * D);
      if (!strcmp(mode, "ssend_small"))
        MPI_Ssend(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD); /* WS:lr_ssend */
      else
        MPI_Send(big, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD); /* WS:lr_send */
    }
    if (me == 1) {
      compute_ms(D);
      MPI_Recv(big, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:lr_recv */
    }
  } else if (!strcmp(mode, "barrier") || !strcmp(mode, "allreduce")) {
    /* every rank waits for rank 1 */
    if (me == 1 || control) compute_ms(D);
    if (!strcmp(mode, "barrier"))
      MPI_Barrier(MPI_COMM_WORLD); /* WS:barrier */
    else
      MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* WS:allreduce */
  } else if (!strcmp(mode, "bcast")) {
    /* the members wait for the root, rank 0 */
    last = 1;
    if (me == 0 && !control) compute_ms(D);
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* WS:bcast */
  } else if (!strcmp(mode, "reduce")) {
    /* the root, rank 0, waits for rank 1 */
    if (me == 1 && !control) compute_ms(D);
    MPI_Reduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* WS:reduce */
  } else if (!strcmp(mode, "scan")) {
    /* every rank above 0 waits for rank 0 */
    last = np - 1;
    if (me == 0 && !control) compute_ms(D);
    MPI_Scan(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* WS:scan */
  } else if (!strcmp(mode, "waitall")) {
    /* rank 0 waits in MPI_Waitall for two messages; rank 2's comes D late: the wait counts
       once, against the request that finished last */
    if (me == 0) {
      MPI_Request r[2];
      double a = 0, b = 0;
      if (control) compute_ms(1.5 * D);
      MPI_Irecv(&a, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv(&b, 1, MPI_DOUBLE, 2, 4, MPI_COMM_WORLD, &r[1]);
      MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's definition of it */
      MPI_Waitall(2, r, st); /* WS:waitall */
    }
    if (me == 1) MPI_Send(&v, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    if (me == 2) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD); /* WS:waitall_send */
    }
  } else if (!strcmp(mode, "iallreduce")) {
    /* a non-blocking collective: every rank waits in MPI_Wait for rank 3's MPI_Iallreduce */
    MPI_Request r;
    if (me == np - 1 || control) compute_ms(D);
    MPI_Iallreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); /* WS:iallreduce */
    MPI_Wait(&r, MPI_STATUS_IGNORE); /* WS:iwait */
  } else if (!strcmp(mode, "wrong_order")) {
    /* rank 0 receives rank 1's message first, though rank 2's was sent D earlier: it waits D
       for rank 1 while rank 2's message waits in a buffer (control: in the order they are sent,
       the same D is a plain Late Sender) */
    double a = 0, b = 0;
    if (me == 0) {
      if (control) MPI_Recv(&b, 1, MPI_DOUBLE, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&a, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:wo_recv */
      if (!control) MPI_Recv(&b, 1, MPI_DOUBLE, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (me == 1) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD); /* WS:wo_send */
    }
    if (me == 2) MPI_Send(&v, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
  } else if (!strcmp(mode, "wrong_order_nb")) {
    /* rank 0 posts receives for rank 1's message (sent D late) and rank 2's (sent at once) and
       completes rank 1's first, by MPI_Wait: it waits D while rank 2's message sits ready, a
       Wrong Order. Control: the same receives, posted in the same order, completed together by
       MPI_Waitall (a halo exchange): the wait for the last message is a plain Late Sender,
       whatever order the receives were posted in */
    if (me == 0) {
      MPI_Request r[2];
      double a = 0, b = 0;
      MPI_Irecv(&a, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv(&b, 1, MPI_DOUBLE, 2, 6, MPI_COMM_WORLD, &r[1]);
      if (control) {
        MPI_Status st[2];
        MPI_Waitall(2, r, st); /* WS:wonb_waitall */
      } else {
        MPI_Wait(&r[0], MPI_STATUS_IGNORE); /* WS:wonb_wait */
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
      }
    }
    if (me == 1) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD); /* WS:wonb_send */
    }
    if (me == 2) MPI_Send(&v, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD);
  } else if (!strcmp(mode, "misarrangement") || !strcmp(mode, "misarrangement_bsend")) {
    /* rank 1 sends tag 1 (8 bytes: eager, or buffered), computes D, sends tag 2; rank 0 asks for
       tag 2 first: it waits D while tag 1 sits in a buffer (control: tag 1 first, the same D is
       then a plain Late Sender) */
    const int bsend = !strcmp(mode, "misarrangement_bsend");
    static char bsend_buf[2 * (MPI_BSEND_OVERHEAD + 64)];
    double a = 0, b = 0;
    if (me == 0) {
      if (control) MPI_Recv(&a, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(&b, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:mis_recv */
      if (!control) MPI_Recv(&a, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (me == 1) {
      if (bsend) MPI_Buffer_attach(bsend_buf, (int)sizeof bsend_buf);
      if (bsend)
        MPI_Bsend(&v, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD); /* WS:mis_bsend1 */
      else
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD); /* WS:mis_send1 */
      compute_ms(D);
      if (bsend)
        MPI_Bsend(&v, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* WS:mis_bsend2 */
      else
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* WS:mis_send2 */
      if (bsend) {
        void* p;
        int n;
        MPI_Buffer_detach(&p, &n);
      }
    }
  } else if (!strcmp(mode, "send_modes")) {
    /* seed 001's send modes, one delay each between ranks 0 and 1 (D = 300: 100, 200, 300, 150
       ms): a late MPI_Ssend, a late MPI_Bsend, a late MPI_Rsend (the receive posted first, as
       MPI_Rsend requires), and an early MPI_Ssend to a late receiver; the barriers start each
       phase together (control: no delays) */
    static char bsend_buf[MPI_BSEND_OVERHEAD + 64];
    const double k = control ? 0 : D / 300;
    double a = 0;
    MPI_Request r;
    if (me == 1) MPI_Buffer_attach(bsend_buf, (int)sizeof bsend_buf);
    if (me == 0) MPI_Recv(&a, 1, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (me == 1) {
      compute_ms(100 * k);
      MPI_Ssend(&v, 1, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_Recv(&a, 1, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (me == 1) {
      compute_ms(200 * k);
      MPI_Bsend(&v, 1, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_Irecv(&a, 1, MPI_DOUBLE, 1, 13, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (me == 1) {
      compute_ms(300 * k);
      MPI_Rsend(&v, 1, MPI_DOUBLE, 0, 13, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_Ssend(&v, 1, MPI_DOUBLE, 1, 14, MPI_COMM_WORLD);
    if (me == 1) {
      compute_ms(150 * k);
      MPI_Recv(&a, 1, MPI_DOUBLE, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      void* p;
      int n;
      MPI_Buffer_detach(&p, &n);
    }
  } else if (!strcmp(mode, "nb_send_modes")) {
    /* seed 001's non-blocking modes with MPI_Irecv, between ranks 0 and 1 (D = 300: 100, 200,
       300, 150, 250 ms): waiting on the receiver side for a late MPI_Issend, MPI_Ibsend and
       MPI_Irsend (the receive posted first), on the sender side of an MPI_Issend and of a
       rendezvous-size MPI_Isend to a late receiver; an MPI_Ibsend to a late receiver does not
       wait (it is local: seed 001 "no error"); control: no delays */
    static char bsend_buf[MPI_BSEND_OVERHEAD + 64];
    static double big[1 << 17]; /* 1 MiB: above the eager limit (rendezvous) */
    const double k = control ? 0 : D / 300;
    double a = 0;
    MPI_Request r;
    MPI_Buffer_attach(bsend_buf, (int)sizeof bsend_buf);
    const int tags[3] = {21, 22, 23};
    for (int i = 0; i < 3; ++i) {
      if (me == 0) MPI_Irecv(&a, 1, MPI_DOUBLE, 1, tags[i], MPI_COMM_WORLD, &r);
      MPI_Barrier(MPI_COMM_WORLD);
      if (me == 0) MPI_Wait(&r, MPI_STATUS_IGNORE);
      if (me == 1) {
        compute_ms((i + 1) * 100 * k);
        if (i == 0) MPI_Issend(&v, 1, MPI_DOUBLE, 0, tags[i], MPI_COMM_WORLD, &r);
        if (i == 1) MPI_Ibsend(&v, 1, MPI_DOUBLE, 0, tags[i], MPI_COMM_WORLD, &r);
        if (i == 2) MPI_Irsend(&v, 1, MPI_DOUBLE, 0, tags[i], MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == 0) {
      MPI_Issend(&v, 1, MPI_DOUBLE, 1, 24, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (me == 1) {
      compute_ms(150 * k);
      MPI_Recv(&a, 1, MPI_DOUBLE, 0, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
      MPI_Isend(big, (int)(sizeof big / sizeof big[0]), MPI_DOUBLE, 1, 25, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE); /* WS:nb_isend_wait */
    }
    if (me == 1) {
      compute_ms(250 * k);
      MPI_Recv(big, (int)(sizeof big / sizeof big[0]), MPI_DOUBLE, 0, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
      MPI_Ibsend(&v, 1, MPI_DOUBLE, 1, 26, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (me == 1) {
      compute_ms(100 * k);
      MPI_Recv(&a, 1, MPI_DOUBLE, 0, 26, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    void* p;
    int n;
    MPI_Buffer_detach(&p, &n);
  } else if (!strcmp(mode, "barrier_completion")) {
    /* rank np-1 enters the barrier at once, rank 1 L = 100 ms later, the others at once. 50 ms
       in, while rank np-1 waits inside the barrier for rank 1, an alarm holds it there until
       L + D. Its own messages of the barrier went out before (it only waits for rank 1's, in
       the last step of the usual algorithms: dissemination, recursive doubling, fan-in/out to
       rank 0, shared-memory release flags), so the others leave at L and rank np-1 at L + D:
       Barrier Completion D on rank np-1, Wait at Barrier L on the others (control: no alarm). */
    const double L = 100;
    last = np - 1;
    if (me == np - 1 && !control) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = hold_until;
      sa.sa_flags = SA_RESTART;
      sigaction(SIGALRM, &sa, NULL);
      clock_gettime(CLOCK_MONOTONIC, &alarm_until);
      const double until = L + D;
      alarm_until.tv_sec += (time_t)(until / 1e3);
      alarm_until.tv_nsec += (long)((until - (time_t)(until / 1e3) * 1e3) * 1e6);
      if (alarm_until.tv_nsec >= 1000000000L) {
        alarm_until.tv_sec += 1;
        alarm_until.tv_nsec -= 1000000000L;
      }
      struct itimerval t;
      memset(&t, 0, sizeof t);
      t.it_value.tv_usec = 50000;
      setitimer(ITIMER_REAL, &t, NULL);
    }
    if (me == 1) compute_ms(L);
    MPI_Barrier(MPI_COMM_WORLD); /* WS:bc_barrier */
  } else if (!strcmp(mode, "nxn_completion")) {
    /* rank np-1 leaves the MPI_Allreduce D after the first member (slow_sum above); control:
       nobody is slow */
    MPI_Op op;
    MPI_Op_create(slow_sum, 1, &op);
    my_rank = me;
    slow_rank = control ? -1 : np - 1;
    slow_ms = D;
    last = np - 1;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, op, MPI_COMM_WORLD); /* WS:nxn_completion */
    MPI_Op_free(&op);
  } else if (!strcmp(mode, "close_pair")) {
    /* rank 0 sends to rank 1 and at once receives from it; rank 1 answers D later: the pair
       takes D (control: rank 0 computes 2 D between the two calls, so they are not close) */
    double a = 0;
    if (me == 0) {
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD); /* WS:cp_send */
      if (control) compute_ms(2 * D);
      MPI_Recv(&a, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:cp_recv */
    }
    if (me == 1) {
      MPI_Recv(&a, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD);
    }
  } else if (!strncmp(mode, "root_cause_", 11) && strcmp(mode, "root_cause_chain")) {
    /* Root causes (docs/report.md): rank np-1 computes D, makes one blocking call that returns
       at once (it does not wait: an eager MPI_Send to a receive posted before, MPI_Test or
       MPI_Wait on MPI_REQUEST_NULL, an MPI_Iprobe that finds nothing, an MPI_Sendrecv with
       itself), computes D/30 and joins an MPI_Allreduce the others wait about D in. The cause
       is its compute since the barrier, short-term; nothing was propagated. */
    const char* x = mode + 11;
    MPI_Request r = MPI_REQUEST_NULL;
    int flag = 0;
    double a = 0;
    if (me == 0 && !strcmp(x, "send")) MPI_Irecv(&a, 1, MPI_DOUBLE, np - 1, 7, MPI_COMM_WORLD, &r);
    /* Rank 0 comes last, so the barrier is a call rank np-1 waited in: the interval starts
       there, whatever order the ranks left the barrier at the start in. */
    if (me == 0) compute_ms(D / 10);
    MPI_Barrier(MPI_COMM_WORLD); /* WS:rc_barrier */
    if (me == np - 1) {
      compute_ms(D);
      if (!strcmp(x, "send"))
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
      else if (!strcmp(x, "test"))
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      else if (!strcmp(x, "wait_null"))
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      else if (!strcmp(x, "iprobe"))
        MPI_Iprobe(0, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      else if (!strcmp(x, "sendrecv_self"))
        MPI_Sendrecv(&v, 1, MPI_DOUBLE, 0, 8, &a, 1, MPI_DOUBLE, 0, 8, MPI_COMM_SELF, MPI_STATUS_IGNORE);
      compute_ms(D / 30);
    }
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* WS:rc_allreduce */
    if (me == 0 && !strcmp(x, "send")) MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "root_cause_chain")) {
    /* A chain of waits: rank 2 computes D and sends to rank 1, which waits for it in MPI_Recv
       and passes a message on to rank 0 at once; rank 0 waits D for rank 1. Rank 1's part is
       long-term (propagated: it was waiting itself), rank 2's compute short-term. */
    double a = 0;
    if (me == 2) {
      compute_ms(D);
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD); /* WS:chain_send2 */
    }
    if (me == 1) {
      MPI_Recv(&a, 1, MPI_DOUBLE, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS:chain_recv1 */
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD); /* WS:chain_send1 */
    }
    if (me == 0) MPI_Recv(&a, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "pop")) {
    /* useful compute 4:2:1:1 x D (ranks beyond 4: 1 x D): load balance (mean / max) 50% on 4 ranks */
    compute_ms(me == 0 ? 4 * D : me == 1 ? 2 * D : D);
    MPI_Barrier(MPI_COMM_WORLD);
    last = -1;
  } else if (!strcmp(mode, "pop_pipeline")) {
    /* a pipeline: rank r waits for r-1, computes D, passes on. Every rank computes D (load
       balance 1) but only one at a time: even with free transfers the run takes np x D, so
       serialisation efficiency = D / (np D) = 1/np and transfer efficiency ~ 1 */
    double a = 0;
    if (me > 0) MPI_Recv(&a, 1, MPI_DOUBLE, me - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    compute_ms(D);
    if (me + 1 < np) MPI_Send(&v, 1, MPI_DOUBLE, me + 1, 9, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    last = -1;
  }
  if (last >= 0) compute_ms(me == last ? 100.0 : 5.0);
  if (me == 0) printf("ws_known %s%s done\n", mode, control ? "_control" : "");
  MPI_Finalize();
  return 0;
}
