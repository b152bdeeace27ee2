/* A random MPI program for the differential test of the critical path: every rank draws the
   same global schedule from the seed, so the program is deadlock-free by construction while
   mixing blocking / non-blocking / synchronous / buffered / persistent point-to-point, several
   messages per channel with wildcard receives (any source, any tag, both), probes and matched probes (Mprobe/Mrecv), Wait/Waitany/Waitsome/Testall, cancelled
   receives, MPI_Win_fence epochs, blocking and non-blocking collectives on split, duplicated and freed communicators,
   and imbalanced compute.

   usage: cp_random_app SEED [STEPS] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}
static int rnd_below(int n) { return n > 0 ? (int)(rnd() % (uint32_t)n) : 0; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;
static void compute(int us) {
  const double end = now() + us * 1e-6;
  double x = 1.0;
  while (now() < end)
    for (int i = 0; i < 100; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

/* Every message names its send: sender's world rank and the sender's send ordinal (its sends
   counted in posting order). Each receive is logged with its receive ordinal and what it got,
   into $CPATH_TEST_EXPECT_DIR/received.<rank>.txt, for checks/cp_matches.py to compare with the
   analysis' matched pairs (option matches=1). */
static int send_ordinal, recv_ordinal, peek_ordinal;
static double payload(int rank, int ordinal) { return (double)rank * 1000000.0 + ordinal; }
static void log_received(FILE* rec, const char* kind, int ordinal, double v) {
  if (!rec) return;
  const long x = (long)v;
  fprintf(rec, "%s %d %ld %ld\n", kind, ordinal, x / 1000000, x % 1000000);
}

#define MAXMSG 64
/* A buffered send is 16 KiB every other time, above the eager limits (Open MPI 4 KiB, MPICH
   with UCX 8 KiB): MPI sends it from the attached buffer in the sender's next call (rule 3).
   Receives take up to that many doubles; the first carries the payload. */
#define BIGMSG 2048
typedef struct {
  int src, dst, tag;
  int send_mode; /* 0 Send, 1 Isend, 2 Ssend (only if receiver pre-posts), 3 Send_init+Start, 4 Bsend */
  int recv_mode; /* 0 pre-posted Irecv, 1 blocking Recv after sends, 2 Probe+Recv, 3 Mprobe+Mrecv */
  int any_source, any_tag;
} Msg;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1u;
  const int steps = argc > 2 ? atoi(argv[2]) : 40;
  rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x100000001b3ull);
  if (!rng_state) rng_state = 1;

  /* Communicators: world, halves, a dup, and one that is freed halfway and replaced. */
  MPI_Comm comms[4];
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &comms[1]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[2]);
  MPI_Comm_split(MPI_COMM_WORLD, me < np / 2, me, &comms[3]);
  MPI_Request pending_coll = MPI_REQUEST_NULL;
  static char bsend_buffer[1 << 22];
  MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
  double win_buf[4] = {0};
  MPI_Win win;
  MPI_Win_create(win_buf, sizeof win_buf, sizeof(double), MPI_INFO_NULL, comms[2], &win);
  double cbuf[4] = {0}, cres[4 * 64];
  long checksum = 0;
  FILE* rec = NULL;
  if (getenv("CPATH_TEST_EXPECT_DIR")) {
    char path[4096];
    snprintf(path, sizeof path, "%s/received.%d.txt", getenv("CPATH_TEST_EXPECT_DIR"), me);
    rec = fopen(path, "w");
  }

  for (int step = 0; step < steps; ++step) {
    /* Imbalanced compute: every rank draws the same numbers and picks its own. */
    int work[64];
    for (int r = 0; r < np && r < 64; ++r) work[r] = 50 + rnd_below(400);
    compute(work[me]);

    const int what = rnd_below(11);
    if (what <= 4) {
      /* Point-to-point round: a random set of messages on two tags per step, so one channel
         (communicator, source, destination, tag) often carries several messages, and each
         destination receives in one of four ways: specific source and tag, MPI_ANY_SOURCE,
         MPI_ANY_TAG, or both. A wildcard is used for every receive of its class (same tag, same
         source, or all of the destination's), so any assignment of messages to receives
         completes. Both wildcards only on the duplicate communicator: on MPI_COMM_WORLD they
         could take the next step's ring message. */
      MPI_Comm pc = rnd_below(2) ? comms[2] : MPI_COMM_WORLD;
      Msg m[MAXMSG];
      int wild[64];
      int n = 1 + rnd_below(np + 4);
      if (n > MAXMSG) n = MAXMSG;
      for (int r = 0; r < np && r < 64; ++r) {
        wild[r] = rnd_below(4);
        if (wild[r] == 3 && pc == MPI_COMM_WORLD) wild[r] = 1;
      }
      for (int k = 0; k < n; ++k) {
        m[k].src = rnd_below(np);
        m[k].dst = rnd_below(np);
        if (m[k].dst == m[k].src) m[k].dst = (m[k].src + 1) % np;
        m[k].tag = step * 100 + rnd_below(2);
        m[k].recv_mode = rnd_below(4);
        m[k].send_mode = rnd_below(5);
        m[k].any_source = wild[m[k].dst] == 1 || wild[m[k].dst] == 3;
        m[k].any_tag = wild[m[k].dst] == 2 || wild[m[k].dst] == 3;
      }
      /* A synchronous send must be taken by a pre-posted receive (else two ranks could block in
         Ssend waiting for each other's later receives): only when every receive that could take
         it is pre-posted. */
      for (int k = 0; k < n; ++k) {
        if (m[k].send_mode != 2) continue;
        for (int j = 0; j < n; ++j) {
          const int same_class = m[j].dst == m[k].dst && (m[k].any_source || m[j].src == m[k].src) &&
                                 (m[k].any_tag || m[j].tag == m[k].tag);
          if (same_class && m[j].recv_mode != 0) m[k].send_mode = 0;
        }
      }
      MPI_Request rq[2 * MAXMSG];
      int nrq = 0;
      static double in[MAXMSG][BIGMSG], out[MAXMSG][BIGMSG];
      int in_ord[MAXMSG];
      MPI_Request persist[MAXMSG];
      int npersist = 0;
      for (int k = 0; k < n; ++k)
        if (m[k].dst == me && m[k].recv_mode == 0) {
          in_ord[k] = recv_ordinal++;
          MPI_Irecv(in[k], BIGMSG, MPI_DOUBLE, m[k].any_source ? MPI_ANY_SOURCE : m[k].src,
                    m[k].any_tag ? MPI_ANY_TAG : m[k].tag, pc, &rq[nrq++]);
        }
      /* Synchronous sends wait for receivers that pre-posted: everyone posts first. */
      MPI_Barrier(comms[2]);
      for (int k = 0; k < n; ++k) {
        if (m[k].src != me) continue;
        out[k][0] = payload(me, send_ordinal++);
        /* Every third standard send is 512 bytes: eager everywhere, but above Open MPI's
           256-byte inline limit, so it may be held for its receiver (rule 3). */
        const int nstd = (m[k].tag + k) % 3 == 0 ? 64 : 1;
        switch (m[k].send_mode) {
          case 0: MPI_Send(out[k], nstd, MPI_DOUBLE, m[k].dst, m[k].tag, pc); break;
          case 1: MPI_Isend(out[k], nstd, MPI_DOUBLE, m[k].dst, m[k].tag, pc, &rq[nrq++]); break;
          case 2: MPI_Ssend(out[k], 1, MPI_DOUBLE, m[k].dst, m[k].tag, pc); break;
          case 4: MPI_Bsend(out[k], (m[k].tag + k) % 2 ? BIGMSG : 1, MPI_DOUBLE, m[k].dst, m[k].tag, pc); break;
          default:
            MPI_Send_init(out[k], nstd, MPI_DOUBLE, m[k].dst, m[k].tag, pc, &persist[npersist]);
            MPI_Start(&persist[npersist]);
            rq[nrq++] = persist[npersist++];
        }
      }
      for (int k = 0; k < n; ++k) {
        if (m[k].dst != me || m[k].recv_mode == 0) continue;
        const int src = m[k].any_source ? MPI_ANY_SOURCE : m[k].src;
        const int tag = m[k].any_tag ? MPI_ANY_TAG : m[k].tag;
        MPI_Status st;
        if (m[k].recv_mode == 2) {
          const int peek = peek_ordinal++;
          MPI_Probe(src, tag, pc, &st);
          const int ord = recv_ordinal++;
          MPI_Recv(in[k], BIGMSG, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, pc, MPI_STATUS_IGNORE);
          log_received(rec, "peek", peek, in[k][0]);
          log_received(rec, "recv", ord, in[k][0]);
        } else if (m[k].recv_mode == 3) {
          MPI_Message msg;
          const int ord = recv_ordinal++;
          MPI_Mprobe(src, tag, pc, &msg, &st);
          MPI_Mrecv(in[k], BIGMSG, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
          log_received(rec, "recv", ord, in[k][0]);
        } else {
          const int ord = recv_ordinal++;
          MPI_Recv(in[k], BIGMSG, MPI_DOUBLE, src, tag, pc, &st);
          log_received(rec, "recv", ord, in[k][0]);
        }
        checksum += (long)in[k][0];
      }
      compute(rnd_below(100));
      /* Complete with a random completion call. */
      const int how = rnd_below(4); /* drawn on every rank: the schedule stays global */
      if (nrq > 0) {
        if (how == 0) {
          MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE);
        } else if (how == 1) {
          for (int left = nrq; left > 0; --left) {
            int idx;
            MPI_Waitany(nrq, rq, &idx, MPI_STATUS_IGNORE);
          }
        } else if (how == 2) {
          int flag = 0;
          while (!flag) MPI_Testall(nrq, rq, &flag, MPI_STATUSES_IGNORE);
        } else {
          int done = 0, outcount, idx[2 * MAXMSG];
          while (done < nrq) {
            MPI_Waitsome(nrq, rq, &outcount, idx, MPI_STATUSES_IGNORE);
            if (outcount == MPI_UNDEFINED) break;
            done += outcount;
          }
        }
      }
      for (int k = 0; k < npersist; ++k) MPI_Request_free(&persist[k]);
      /* Sometimes a receive nobody sends to, cancelled: the replay must leave it unmatched. */
      if (rnd_below(4) == 0) {
        double never;
        MPI_Request c;
        const int ord = recv_ordinal++;
        MPI_Irecv(&never, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 999999, MPI_COMM_WORLD, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, MPI_STATUS_IGNORE);
        if (rec) fprintf(rec, "recv %d none\n", ord);
      }
      for (int k = 0; k < n; ++k)
        if (m[k].dst == me && m[k].recv_mode == 0) {
          log_received(rec, "recv", in_ord[k], in[k][0]);
          checksum += (long)in[k][0];
        }
    } else if (what <= 7) {
      /* A collective on a random communicator; sometimes non-blocking, completed later. */
      const int c = rnd_below(4);
      const int kind = rnd_below(7);
      int csize;
      MPI_Comm_size(comms[c], &csize);
      const int root = rnd_below(csize);
      const int nonblocking = rnd_below(3) == 0 && pending_coll == MPI_REQUEST_NULL;
      cbuf[0] = me;
      switch (kind) {
        case 0:
          if (nonblocking) MPI_Ibarrier(comms[c], &pending_coll);
          else MPI_Barrier(comms[c]);
          break;
        case 1:
          if (nonblocking) MPI_Iallreduce(cbuf, cres, 1, MPI_DOUBLE, MPI_SUM, comms[c], &pending_coll);
          else MPI_Allreduce(cbuf, cres, 1, MPI_DOUBLE, MPI_SUM, comms[c]);
          break;
        case 2:
          if (nonblocking) MPI_Ibcast(cbuf, 1, MPI_DOUBLE, root, comms[c], &pending_coll);
          else MPI_Bcast(cbuf, 1, MPI_DOUBLE, root, comms[c]);
          break;
        case 3: MPI_Reduce(cbuf, cres, 1, MPI_DOUBLE, MPI_MAX, root, comms[c]); break;
        case 4: MPI_Allgather(cbuf, 1, MPI_DOUBLE, cres, 1, MPI_DOUBLE, comms[c]); break;
        case 5: MPI_Scan(cbuf, cres, 1, MPI_DOUBLE, MPI_SUM, comms[c]); break;
        default: MPI_Gather(cbuf, 1, MPI_DOUBLE, cres, 1, MPI_DOUBLE, root, comms[c]); break;
      }
    } else if (what == 8) {
      /* Ring shift with Sendrecv. */
      double a = payload(me, send_ordinal++), b = 0;
      const int ord = recv_ordinal++;
      MPI_Sendrecv(&a, 1, MPI_DOUBLE, (me + 1) % np, 1000000 + step, &b, 1, MPI_DOUBLE, (me + np - 1) % np, 1000000 + step, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      log_received(rec, "recv", ord, b);
      checksum += (long)b;
    } else if (what == 10) {
      /* One-sided epoch: everybody puts to its right neighbour between two fences. */
      double v = me;
      MPI_Win_fence(0, win);
      MPI_Put(&v, 1, MPI_DOUBLE, (me + 1) % np, 0, 1, MPI_DOUBLE, win);
      MPI_Win_fence(0, win);
      checksum += (long)win_buf[0];
    } else {
      /* Replace communicator 3: free it and split again (handles get reused). */
      if (pending_coll != MPI_REQUEST_NULL) MPI_Wait(&pending_coll, MPI_STATUS_IGNORE);
      MPI_Comm_free(&comms[3]);
      MPI_Comm_split(MPI_COMM_WORLD, rnd_below(2) ? me % 3 : me < np / 2, rnd_below(np), &comms[3]);
    }
    if (pending_coll != MPI_REQUEST_NULL && rnd_below(2)) MPI_Wait(&pending_coll, MPI_STATUS_IGNORE);
  }
  if (pending_coll != MPI_REQUEST_NULL) MPI_Wait(&pending_coll, MPI_STATUS_IGNORE);
  MPI_Win_free(&win);
  void* detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  MPI_Comm_free(&comms[1]);
  MPI_Comm_free(&comms[2]);
  MPI_Comm_free(&comms[3]);
  long total = 0;
  MPI_Reduce(&checksum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rec) fclose(rec);
  if (me == 0) printf("random app seed %u: %d steps on %d ranks, checksum %ld\n", seed, steps, np, total);
  MPI_Finalize();
  return 0;
}
