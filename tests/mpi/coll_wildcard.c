/* Collection test: MPI_ANY_SOURCE / MPI_ANY_TAG receives, blocking and non-blocking, where
   the actual sources are known: in every phase each rank s > 0 sends rank 0 exactly one
   message with a tag that encodes s, and a barrier separates the phases. The expectations
   list the ACTUAL source and tag of every receive (cpath-read resolves them from the
   recorded statuses), so a receive attributed to the wrong source or left at -1 fails.
   Rank 0 checks each status against the payload (the sender's rank) itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll_tally.h"

static int r, n;

static void barrier(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  tally_call("MPI_Barrier", 0);
}

/* Every rank s > 0 sends its rank to 0 with tag base + s (or exactly `base` if same_tag). */
static void senders(int base, int same_tag) {
  if (r == 0) return;
  const int tag = same_tag ? base : base + r;
  MPI_Send(&r, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
  tally_call("MPI_Send", 4);
  tally_send_w("MPI_Send", 0, tag, 4);
}

/* Rank 0: one receive's status and payload agree, and the tag encodes the source. */
static void got(const char* call, const MPI_Status* st, int payload, int base, int same_tag) {
  const int s = st->MPI_SOURCE;
  TALLY_CHECK(s > 0 && s < n && payload == s && st->MPI_TAG == (same_tag ? base : base + s),
              "%s: source %d tag %d payload %d", call, s, st->MPI_TAG, payload);
  tally_recv_w(call, s, same_tag ? base : base + s);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int* buf = calloc((size_t)n, sizeof(int));
  MPI_Request* rq = calloc((size_t)n, sizeof(MPI_Request));
  MPI_Status* sts = calloc((size_t)n, sizeof(MPI_Status));
  int* idx = calloc((size_t)n, sizeof(int));
  MPI_Status st;
  const int k = n - 1; /* messages rank 0 receives per phase */

  /* 1: blocking, ANY_SOURCE + ANY_TAG */
  senders(100, 0);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Recv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      tally_call("MPI_Recv", 0);
      got("MPI_Recv", &st, buf[0], 100, 0);
    }
  barrier();

  /* 2: blocking, ANY_SOURCE with a fixed tag */
  senders(200, 1);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Recv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &st);
      tally_call("MPI_Recv", 0);
      got("MPI_Recv", &st, buf[0], 200, 1);
    }
  barrier();

  /* 3: blocking, fixed source with ANY_TAG */
  senders(300, 0);
  if (r == 0)
    for (int s = 1; s < n; ++s) {
      MPI_Recv(&buf[0], 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      tally_call("MPI_Recv", 0);
      got("MPI_Recv", &st, buf[0], 300, 0);
    }
  barrier();

  /* 4: blocking, ANY_SOURCE + ANY_TAG with MPI_STATUS_IGNORE (the library needs its own status) */
  senders(400, 0);
  if (r == 0) {
    int seen = 0;
    for (int i = 0; i < k; ++i) {
      MPI_Recv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      tally_call("MPI_Recv", 0);
      seen |= 1 << buf[0];
    }
    for (int s = 1; s < n; ++s) tally_recv_w("MPI_Recv", s, 400 + s);
    TALLY_CHECK(seen == ((1 << n) - 2), "STATUS_IGNORE receives: %x", seen);
  }
  barrier();

  /* 5: Irecv(ANY, ANY) x k completed by Waitany */
  if (r == 0) {
    for (int i = 0; i < k; ++i) {
      MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
      tally_call("MPI_Irecv", 0);
    }
  }
  barrier(); /* receives are posted before anything is sent */
  senders(500, 0);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      int j = -1;
      MPI_Waitany(k, rq, &j, &st);
      tally_call("MPI_Waitany", 0);
      TALLY_CHECK(j >= 0 && j < k, "Waitany index %d", j);
      if (j >= 0 && j < k) got("MPI_Irecv", &st, buf[j], 500, 0);
    }
  barrier();

  /* 6: Irecv(ANY, fixed tag) x k completed by Waitsome (statuses) */
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, 600, MPI_COMM_WORLD, &rq[i]);
      tally_call("MPI_Irecv", 0);
    }
  senders(600, 1);
  if (r == 0)
    for (int done = 0; done < k;) {
      int oc = 0;
      MPI_Waitsome(k, rq, &oc, idx, sts);
      tally_call("MPI_Waitsome", 0);
      TALLY_CHECK(oc != MPI_UNDEFINED && oc > 0, "Waitsome outcount %d", oc);
      if (oc == MPI_UNDEFINED || oc <= 0) break;
      for (int j = 0; j < oc; ++j) got("MPI_Irecv", &sts[j], buf[idx[j]], 600, 1);
      done += oc;
    }
  barrier();

  /* 7: Irecv(ANY, ANY) x k completed by Testsome, then one by Testany, rest by Waitall
     with MPI_STATUSES_IGNORE (sources known only from the library's own statuses) */
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Irecv(&buf[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
      tally_call("MPI_Irecv", 0);
    }
  senders(700, 0);
  if (r == 0) {
    int done = 0, seen = 0;
    while (done == 0) {
      int oc = 0;
      MPI_Testsome(k, rq, &oc, idx, sts);
      tally_call("MPI_Testsome", 0);
      if (oc == MPI_UNDEFINED) break;
      for (int j = 0; j < oc; ++j) {
        got("MPI_Irecv", &sts[j], buf[idx[j]], 700, 0);
        seen |= 1 << buf[idx[j]];
      }
      done += oc;
    }
    if (done < k) {
      int flag = 0, j = -1;
      while (!flag) {
        MPI_Testany(k, rq, &j, &flag, &st);
        tally_call("MPI_Testany", 0);
      }
      if (j != MPI_UNDEFINED) {
        got("MPI_Irecv", &st, buf[j], 700, 0);
        seen |= 1 << buf[j];
        ++done;
      }
    }
    if (done < k) {
      MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
      tally_call("MPI_Waitall", 0);
      for (int s = 1; s < n; ++s)
        if (!(seen & (1 << s))) tally_recv_w("MPI_Irecv", s, 700 + s);
    }
  }
  barrier();

  /* 8: persistent Recv_init(ANY, ANY): each Start + Wait instance gets its own source */
  if (r == 0) {
    MPI_Request p;
    int v = -1;
    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &p);
    tally_call("MPI_Recv_init", 0);
    barrier();
    senders(800, 0);
    for (int i = 0; i < k; ++i) {
      MPI_Start(&p);
      MPI_Wait(&p, &st);
      tally_call("MPI_Start", 0);
      tally_call("MPI_Wait", 0);
      got("MPI_Recv_init", &st, v, 800, 0);
    }
    MPI_Request_free(&p);
    tally_call("MPI_Request_free", 0);
  } else {
    barrier();
    senders(800, 0);
  }
  barrier();

  /* 9: Probe(ANY, ANY) then a specific Recv; Mprobe(ANY, ANY) + Mrecv; Improbe + Imrecv */
  senders(900, 0);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      tally_call("MPI_Probe", 0);
      const int s = st.MPI_SOURCE, t = st.MPI_TAG;
      MPI_Recv(&buf[0], 1, MPI_INT, s, t, MPI_COMM_WORLD, &st);
      tally_call("MPI_Recv", 0);
      got("MPI_Recv", &st, buf[0], 900, 0);
    }
  barrier();
  senders(1000, 0);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Message msg;
      MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
      MPI_Mrecv(&buf[0], 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
      tally_call("MPI_Mprobe", 0);
      tally_call("MPI_Mrecv", 0);
      got("MPI_Mprobe", &st, buf[0], 1000, 0);
    }
  barrier();
  senders(1100, 0);
  if (r == 0)
    for (int i = 0; i < k; ++i) {
      MPI_Message msg;
      int flag = 0;
      while (!flag) {
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
        tally_call("MPI_Improbe", 0);
      }
      MPI_Request q;
      MPI_Imrecv(&buf[0], 1, MPI_INT, &msg, &q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
      tally_call("MPI_Imrecv", 0);
      tally_call("MPI_Wait", 0);
      got("MPI_Improbe", &st, buf[0], 1100, 0);
    }
  barrier();

  /* 10: Sendrecv around the ring, the receive side with ANY_SOURCE + ANY_TAG (only the left
     neighbour sends to each rank in this phase) */
  {
    const int right = (r + 1) % n, left = (r + n - 1) % n;
    int v = -1;
    MPI_Sendrecv(&r, 1, MPI_INT, right, 1200 + r, &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    TALLY_CHECK(v == left && st.MPI_SOURCE == left && st.MPI_TAG == 1200 + left, "Sendrecv wildcard");
    tally_call("MPI_Sendrecv", 4);
    tally_send_w("MPI_Sendrecv", right, 1200 + r, 4);
    tally_recv_w("MPI_Sendrecv", left, 1200 + left);
  }

  free(buf);
  free(rq);
  free(sts);
  free(idx);
  int errors = tally_errors, total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  if (r == 0) printf("coll_wildcard: %d ranks, %d check failures\n", n, total);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  /* for checks/coll_events.py: wildcard receives are flagged, and non-blocking ones keep the
     posted (canonical) values in their own record */
  if (r == 0) {
    tally_directive("event MPI_Recv any_source any_tag comm=world");
    tally_directive("event MPI_Recv any_source tag=200");
    tally_directive("event MPI_Recv any_tag peer=1");
    tally_directive("event MPI_Irecv any_source any_tag peer=-1 tag=-1");
    tally_directive("event MPI_Irecv any_source peer=-1 tag=600");
    tally_directive("event MPI_Recv_init any_source any_tag peer=-1 tag=-1");
    tally_directive("event MPI_Probe any_source any_tag");
    tally_directive("event MPI_Mprobe any_source any_tag");
  }
  tally_directive("event MPI_Sendrecv any_source any_tag peer2=%d tag2=%d", (r + n - 1) % n, 1200 + (r + n - 1) % n);
  MPI_Finalize();
  return total ? 1 : 0;
}
