/* Bookkeeping for the collection-layer test programs (coll_*.c, coll_*.cpp): each program
   tallies, next to every MPI call it makes, what it called and with which arguments, then
   declares the totals through expect.h. The tallies are the program's own knowledge; nothing
   here asks the library or the trace.

   Byte counts follow wrappers/mpi_functions.spec: senders and collectives carry the payload
   of the calling rank; receives, probes and completions carry 0. */
#ifndef COLL_TALLY_H
#define COLL_TALLY_H
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

#define TALLY_MAX_CALLS 160
#define TALLY_MAX_P2P 512

typedef struct {
  char name[48];
  long count, bytes;
} tally_call_t;

typedef struct {
  char kind[8], call[48], comm[32];
  int peer, wpeer, tag;
  long count, bytes;
} tally_p2p_t;

static tally_call_t tally_calls[TALLY_MAX_CALLS];
static int tally_ncalls = 0;
static tally_p2p_t tally_p2ps[TALLY_MAX_P2P];
static int tally_np2p = 0;

static void tally_die(const char* what) {
  fprintf(stderr, "coll_tally: %s\n", what);
  abort();
}

/* One call of `name` with `bytes` payload bytes. */
static void tally_call(const char* name, long bytes) {
  for (int i = 0; i < tally_ncalls; ++i)
    if (!strcmp(tally_calls[i].name, name)) {
      tally_calls[i].count++;
      tally_calls[i].bytes += bytes;
      return;
    }
  if (tally_ncalls == TALLY_MAX_CALLS) tally_die("too many call kinds");
  tally_call_t* c = &tally_calls[tally_ncalls++];
  snprintf(c->name, sizeof c->name, "%s", name);
  c->count = 1;
  c->bytes = bytes;
}

/* `n` calls of `name` carrying `bytes` each. */
static void tally_calls_n(const char* name, long n, long bytes) {
  for (long i = 0; i < n; ++i) tally_call(name, bytes);
}

/* One point-to-point operation (as cpath-read --summary lists them). */
static void tally_p2p(const char* kind, const char* call, const char* comm, int peer, int wpeer, int tag,
                      long bytes) {
  for (int i = 0; i < tally_np2p; ++i) {
    tally_p2p_t* p = &tally_p2ps[i];
    if (!strcmp(p->kind, kind) && !strcmp(p->call, call) && !strcmp(p->comm, comm) && p->peer == peer &&
        p->wpeer == wpeer && p->tag == tag) {
      p->count++;
      p->bytes += bytes;
      return;
    }
  }
  if (tally_np2p == TALLY_MAX_P2P) tally_die("too many point-to-point kinds");
  tally_p2p_t* p = &tally_p2ps[tally_np2p++];
  snprintf(p->kind, sizeof p->kind, "%s", kind);
  snprintf(p->call, sizeof p->call, "%s", call);
  snprintf(p->comm, sizeof p->comm, "%s", comm);
  p->peer = peer;
  p->wpeer = wpeer;
  p->tag = tag;
  p->count = 1;
  p->bytes = bytes;
}

/* Shorthands for MPI_COMM_WORLD, where local and world ranks coincide. */
static void tally_send_w(const char* call, int peer, int tag, long bytes) {
  tally_p2p("send", call, "world", peer, peer, tag, bytes);
}
static void tally_recv_w(const char* call, int peer, int tag) { tally_p2p("recv", call, "world", peer, peer, tag, 0); }

/* Writes every tally as an expectation, plus the "nothing unresolved" line. Call right
   before MPI_Finalize, after tally_call("MPI_Finalize", 0). */
static void tally_emit(int expect_clean) {
  for (int i = 0; i < tally_ncalls; ++i) expect_call(tally_calls[i].name, tally_calls[i].count, tally_calls[i].bytes);
  for (int i = 0; i < tally_np2p; ++i) {
    tally_p2p_t* p = &tally_p2ps[i];
    expect_p2p(p->kind, p->call, p->comm, p->peer, p->wpeer, p->tag, p->count, p->bytes);
  }
  if (expect_clean) expect_line("unresolved unknown_requests=0 never_completed=0");
}

/* Appends a line to $CPATH_TEST_EXPECT_DIR/<file>.<world rank>.txt (nothing without the
   variable). expect.h prefixes every line with "rank N ", so lines that must start with '#'
   (such as "# partial") or directives for the checks/coll_*.py modules go through here. */
static void tally_append(const char* file, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void tally_append(const char* file, const char* fmt, ...) {
  const char* dir = getenv("CPATH_TEST_EXPECT_DIR");
  if (!dir || !*dir) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d.txt", dir, file, rank);
  FILE* f = fopen(path, "a");
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}
/* A directive for a checks/coll_*.py module: one line of directives.<rank>.txt. */
#define tally_directive(...) tally_append("directives", __VA_ARGS__)

/* Name cpath-read gives a communicator defined by world rank `leader` as its `counter`-th
   communicator (counter 1 = the first one it defines). */
static const char* tally_comm_name(char* buf, size_t n, int leader, int counter) {
  snprintf(buf, n, "c%d.%d", leader, counter);
  return buf;
}

/* The program's own consistency checks: a failure prints one line on stdout (so it shows up
   in the output comparison too) and makes the exit code non-zero. */
static int tally_errors = 0;
#define TALLY_CHECK(cond, ...)                          \
  do {                                                  \
    if (!(cond)) {                                      \
      ++tally_errors;                                   \
      printf("CHECK FAILED %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                              \
      printf("\n");                                     \
      fflush(stdout);                                   \
    }                                                   \
  } while (0)

#endif
