/* Executes a ground-truth program description (written by gen_program.py, predicted by
   simulate.py) for real: each rank runs its own lines in order. Compute phases spin on the
   wall clock for their chosen length, after an MPI_Pcontrol(1000000 + phase) marker that lets
   the check find the phase in the trace. Every message carries (sender's world rank, sender's
   send ordinal); every receive and successful probe is logged with its own ordinal to
   $CPATH_TEST_EXPECT_DIR/received.<rank>.txt (checks/cp_matches.py).

   usage: truth_program PROGRAM.txt
   The format is described in gen_program.py. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MARK 1000000
#define MAXCOMM 32
#define MAXSLOT 64
#define MAXRANKS 256
#define MAXBYTES 4096

static int me, np;
static MPI_Comm comms[MAXCOMM];
static int send_ordinal, recv_ordinal, peek_ordinal;
static FILE* rec;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A compute phase lasts `us` microseconds of wall time, whatever else runs on the core: it
   sleeps until spin_ms before its end and spins on the clock for the rest. Spinning the whole
   phase (TRUTH_SPIN_MS larger than the phases) stretches them when ranks share cores: a
   spinner is descheduled past its deadline (measured: median +10 ms, worst +100 ms with 4 ranks
   on 2 loaded cores), while a sleeper wakes promptly (median +0.05 ms, worst +3 ms). */
static volatile double sink;
static double spin_ms = 1.0;
static void spin_us(double us) {
  const double end = now() + us * 1e-6;
  if (spin_ms >= 0 && us * 1e-3 > spin_ms) {
    const double s = us * 1e-6 - spin_ms * 1e-3;
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
  }
  double x = 1.0;
  while (now() < end)
    for (int i = 0; i < 50; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static void die(const char* what, const char* line) {
  fprintf(stderr, "truth_program: %s: %s\n", what, line);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

typedef struct {
  int kind; /* 0 free, 1 recv, 2 send, 3 collective */
  MPI_Request req;
  int ordinal;
  char buf[MAXBYTES];
  double cin[MAXRANKS], cout[MAXRANKS];
} Slot;
static Slot slots[MAXSLOT];

static void fill_payload(char* buf, int bytes) {
  int v[2] = {me, send_ordinal++};
  memset(buf, 0, (size_t)bytes);
  memcpy(buf, v, sizeof v);
}

static void log_msg(const char* kind, int ordinal, const char* buf) {
  int v[2];
  memcpy(v, buf, sizeof v);
  if (rec) fprintf(rec, "%s %d %d %d\n", kind, ordinal, v[0], v[1]);
}

static int parse_rank(const char* s) { return strcmp(s, "any") == 0 ? -1 : atoi(s); }

static MPI_Comm comm_of(const char* s, const char* line) {
  const int c = atoi(s);
  if (c < 0 || c >= MAXCOMM || comms[c] == MPI_COMM_NULL) die("communicator not available on this rank", line);
  return comms[c];
}

/* Splits "a,b,c" (or "-" for none) into ints. */
static int int_list(const char* s, int* out, int max) {
  if (strcmp(s, "-") == 0) return 0;
  int n = 0;
  while (*s && n < max) {
    out[n++] = atoi(s);
    const char* c = strchr(s, ',');
    if (!c) break;
    s = c + 1;
  }
  return n;
}

static int buffer_bytes(const char* s) {
  int b = atoi(s);
  if (b < 8) b = 8;
  if (b > MAXBYTES) b = MAXBYTES;
  return b;
}

/* Blocking (slot < 0) or non-blocking collective of the given kind. */
static void collective(const char* kind, MPI_Comm c, int root, int slot, const char* line) {
  static double in[MAXRANKS], out[MAXRANKS];
  double* a = in;
  double* b = out;
  MPI_Request* r = NULL;
  if (slot >= 0) {
    slots[slot].kind = 3;
    a = slots[slot].cin;
    b = slots[slot].cout;
    r = &slots[slot].req;
  }
  a[0] = me;
#define COLL(blocking, nonblocking) \
  do {                              \
    if (r) nonblocking;             \
    else blocking;                  \
  } while (0)
  if (!strcmp(kind, "barrier")) COLL(MPI_Barrier(c), MPI_Ibarrier(c, r));
  else if (!strcmp(kind, "allreduce")) COLL(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_SUM, c), MPI_Iallreduce(a, b, 1, MPI_DOUBLE, MPI_SUM, c, r));
  else if (!strcmp(kind, "allgather")) COLL(MPI_Allgather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c), MPI_Iallgather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c, r));
  else if (!strcmp(kind, "alltoall")) COLL(MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c), MPI_Ialltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c, r));
  else if (!strcmp(kind, "bcast")) COLL(MPI_Bcast(a, 1, MPI_DOUBLE, root, c), MPI_Ibcast(a, 1, MPI_DOUBLE, root, c, r));
  else if (!strcmp(kind, "reduce")) COLL(MPI_Reduce(a, b, 1, MPI_DOUBLE, MPI_SUM, root, c), MPI_Ireduce(a, b, 1, MPI_DOUBLE, MPI_SUM, root, c, r));
  else if (!strcmp(kind, "gather")) COLL(MPI_Gather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, root, c), MPI_Igather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, root, c, r));
  else if (!strcmp(kind, "scatter")) COLL(MPI_Scatter(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, root, c), MPI_Iscatter(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, root, c, r));
  else if (!strcmp(kind, "scan")) COLL(MPI_Scan(a, b, 1, MPI_DOUBLE, MPI_SUM, c), MPI_Iscan(a, b, 1, MPI_DOUBLE, MPI_SUM, c, r));
  else if (!strcmp(kind, "exscan")) COLL(MPI_Exscan(a, b, 1, MPI_DOUBLE, MPI_SUM, c), MPI_Iexscan(a, b, 1, MPI_DOUBLE, MPI_SUM, c, r));
  else if (!strcmp(kind, "nallgather")) COLL(MPI_Neighbor_allgather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c), MPI_Ineighbor_allgather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c, r));
  else if (!strcmp(kind, "nalltoall")) COLL(MPI_Neighbor_alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c), MPI_Ineighbor_alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, c, r));
  else die("unknown collective", line);
#undef COLL
}

/* After a slot's request completed: log what a receive got, release the slot. */
static void slot_done(int s) {
  if (slots[s].kind == 1) log_msg("recv", slots[s].ordinal, slots[s].buf);
  slots[s].kind = 0;
}

static int slot_list(const char* s, int* idx, MPI_Request* reqs, const char* line) {
  int n = int_list(s, idx, MAXSLOT);
  for (int i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= MAXSLOT || slots[idx[i]].kind == 0) die("bad or idle request slot", line);
    reqs[i] = slots[idx[i]].req;
  }
  return n;
}

static void run_line(char* line) {
  char* tok[64];
  int nt = 0;
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", line);
  for (char* p = strtok(line, " \t\r\n"); p && nt < 64; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
  if (nt < 2 || atoi(tok[0]) != me) return;
  const char* op = tok[1];
  MPI_Status st;
  if (!strcmp(op, "compute") && nt == 4) {
    MPI_Pcontrol(MARK + atoi(tok[2]));
    spin_us(atof(tok[3]) * 1000.0);
  } else if (!strcmp(op, "send") && nt == 7) {
    char buf[MAXBYTES];
    const int bytes = buffer_bytes(tok[6]);
    fill_payload(buf, bytes);
    MPI_Comm c = comm_of(tok[3], copy);
    const int dst = atoi(tok[4]), tag = atoi(tok[5]);
    if (!strcmp(tok[2], "sync")) MPI_Ssend(buf, bytes, MPI_BYTE, dst, tag, c);
    else if (!strcmp(tok[2], "buf")) MPI_Bsend(buf, bytes, MPI_BYTE, dst, tag, c);
    else MPI_Send(buf, bytes, MPI_BYTE, dst, tag, c);
  } else if (!strcmp(op, "isend") && nt == 8) {
    const int s = atoi(tok[7]);
    if (s < 0 || s >= MAXSLOT || slots[s].kind) die("bad or busy request slot", copy);
    const int bytes = buffer_bytes(tok[6]);
    fill_payload(slots[s].buf, bytes);
    slots[s].kind = 2;
    MPI_Comm c = comm_of(tok[3], copy);
    const int dst = atoi(tok[4]), tag = atoi(tok[5]);
    if (!strcmp(tok[2], "sync")) MPI_Issend(slots[s].buf, bytes, MPI_BYTE, dst, tag, c, &slots[s].req);
    else if (!strcmp(tok[2], "buf")) MPI_Ibsend(slots[s].buf, bytes, MPI_BYTE, dst, tag, c, &slots[s].req);
    else MPI_Isend(slots[s].buf, bytes, MPI_BYTE, dst, tag, c, &slots[s].req);
  } else if (!strcmp(op, "recv") && nt == 6) {
    char buf[MAXBYTES];
    const int src = parse_rank(tok[3]), tag = parse_rank(tok[4]);
    const int ord = recv_ordinal++;
    MPI_Recv(buf, buffer_bytes(tok[5]), MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src, tag < 0 ? MPI_ANY_TAG : tag,
             comm_of(tok[2], copy), &st);
    log_msg("recv", ord, buf);
  } else if (!strcmp(op, "irecv") && nt == 7) {
    const int s = atoi(tok[6]);
    if (s < 0 || s >= MAXSLOT || slots[s].kind) die("bad or busy request slot", copy);
    const int src = parse_rank(tok[3]), tag = parse_rank(tok[4]);
    slots[s].kind = 1;
    slots[s].ordinal = recv_ordinal++;
    MPI_Irecv(slots[s].buf, buffer_bytes(tok[5]), MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src,
              tag < 0 ? MPI_ANY_TAG : tag, comm_of(tok[2], copy), &slots[s].req);
  } else if (!strcmp(op, "wait") && nt == 3) {
    int idx[MAXSLOT];
    MPI_Request reqs[MAXSLOT];
    const int n = slot_list(tok[2], idx, reqs, copy);
    if (n == 1) MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    else MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; ++i) slot_done(idx[i]);
  } else if (!strcmp(op, "testloop") && nt == 4) {
    int idx[MAXSLOT];
    MPI_Request reqs[MAXSLOT];
    const int n = slot_list(tok[3], idx, reqs, copy);
    const double chunk = atof(tok[2]);
    for (;;) {
      int flag = 0;
      if (n == 1) MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
      else MPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE);
      if (flag) break;
      spin_us(chunk);
    }
    for (int i = 0; i < n; ++i) slot_done(idx[i]);
  } else if (!strcmp(op, "probeloop") && nt == 7) {
    const double chunk = atof(tok[2]);
    MPI_Comm c = comm_of(tok[3], copy);
    const int src = parse_rank(tok[4]), tag = parse_rank(tok[5]);
    for (;;) {
      int flag = 0;
      MPI_Iprobe(src < 0 ? MPI_ANY_SOURCE : src, tag < 0 ? MPI_ANY_TAG : tag, c, &flag, &st);
      if (flag) break;
      spin_us(chunk);
    }
    char buf[MAXBYTES];
    const int peek = peek_ordinal++, ord = recv_ordinal++;
    MPI_Recv(buf, buffer_bytes(tok[6]), MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, c, MPI_STATUS_IGNORE);
    log_msg("peek", peek, buf);
    log_msg("recv", ord, buf);
  } else if (!strcmp(op, "coll") && nt == 5) {
    collective(tok[2], comm_of(tok[3], copy), atoi(tok[4]), -1, copy);
  } else if (!strcmp(op, "icoll") && nt == 6) {
    const int s = atoi(tok[5]);
    if (s < 0 || s >= MAXSLOT || slots[s].kind) die("bad or busy request slot", copy);
    collective(tok[2], comm_of(tok[3], copy), atoi(tok[4]), s, copy);
  } else {
    die("cannot parse", copy);
  }
}

/* comm ID split PARENT COLOR0 COLOR1 ...   (colors by parent rank; key = parent rank)
   comm ID cart PARENT PERIODIC             (1-D Cartesian over the parent, no reordering)
   comm ID graph PARENT SRC0 DST0 SRC1 DST1 ... (distributed graph, adjacent form; lists of
                                            parent ranks "a,b" or "-") */
static void make_comm(char* line) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", line);
  char* tok[2 * MAXRANKS + 8];
  int nt = 0;
  for (char* p = strtok(line, " \t\r\n"); p && nt < 2 * MAXRANKS + 8; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
  if (nt < 4) die("cannot parse", copy);
  const int id = atoi(tok[1]), parent = atoi(tok[3]);
  if (id <= 0 || id >= MAXCOMM || parent < 0 || parent >= MAXCOMM) die("bad communicator id", copy);
  comms[id] = MPI_COMM_NULL;
  if (comms[parent] == MPI_COMM_NULL) return;
  int pr, ps;
  MPI_Comm_rank(comms[parent], &pr);
  MPI_Comm_size(comms[parent], &ps);
  if (!strcmp(tok[2], "split")) {
    if (nt != 4 + ps) die("split needs one color per parent rank", copy);
    MPI_Comm_split(comms[parent], atoi(tok[4 + pr]), pr, &comms[id]);
  } else if (!strcmp(tok[2], "cart")) {
    int dims[1] = {ps}, periods[1] = {atoi(tok[4])};
    MPI_Cart_create(comms[parent], 1, dims, periods, 0, &comms[id]);
  } else if (!strcmp(tok[2], "graph")) {
    if (nt != 4 + 2 * ps) die("graph needs sources and destinations per parent rank", copy);
    int src[MAXRANKS], dst[MAXRANKS], w[MAXRANKS];
    const int ns = int_list(tok[4 + 2 * pr], src, MAXRANKS), nd = int_list(tok[5 + 2 * pr], dst, MAXRANKS);
    for (int i = 0; i < MAXRANKS; ++i) w[i] = 1;
    MPI_Dist_graph_create_adjacent(comms[parent], ns, src, w, nd, dst, w, MPI_INFO_NULL, 0, &comms[id]);
  } else {
    die("unknown communicator kind", copy);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2) die("usage", "truth_program PROGRAM.txt");
  FILE* f = fopen(argv[1], "r");
  if (!f) die("cannot open", argv[1]);
  for (int i = 0; i < MAXCOMM; ++i) comms[i] = MPI_COMM_NULL;
  comms[0] = MPI_COMM_WORLD;
  if (getenv("TRUTH_SPIN_MS")) spin_ms = atof(getenv("TRUTH_SPIN_MS"));
  if (getenv("CPATH_TEST_EXPECT_DIR")) {
    char path[4096];
    snprintf(path, sizeof path, "%s/received.%d.txt", getenv("CPATH_TEST_EXPECT_DIR"), me);
    rec = fopen(path, "w");
  }
  static char bsend_buffer[1 << 20];
  MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
  char line[4096];
  int started = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (!strncmp(line, "ranks ", 6)) {
      if (atoi(line + 6) != np) die("the program was generated for another number of ranks", line);
    } else if (!strncmp(line, "comm ", 5)) {
      make_comm(line);
    } else {
      if (!started) {
        /* The timed part starts together on every rank (the simulator's time 0). */
        MPI_Barrier(MPI_COMM_WORLD);
        started = 1;
      }
      run_line(line);
    }
  }
  fclose(f);
  void* detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  if (rec) fclose(rec);
  if (me == 0) printf("truth program %s: done on %d ranks\n", argv[1], np);
  MPI_Finalize();
  return 0;
}
