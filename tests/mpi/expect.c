#include "expect.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* expect_file(int* rank) {
  static FILE* f = NULL;
  static int opened = 0;
  static int my_rank = -1;
  if (!opened) {
    opened = 1;
    const char* dir = getenv("CPATH_TEST_EXPECT_DIR");
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    if (dir && *dir) {
      char path[4096];
      snprintf(path, sizeof path, "%s/expect.%d.txt", dir, my_rank);
      f = fopen(path, "w");
    }
  }
  *rank = my_rank;
  return f;
}

void expect_line(const char* fmt, ...) {
  int rank;
  FILE* f = expect_file(&rank);
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(f, "rank %d ", rank);
  vfprintf(f, fmt, ap);
  fprintf(f, "\n");
  fflush(f);
  va_end(ap);
}

void expect_call(const char* call, long count, long bytes) {
  if (count > 0) expect_line("call %s count=%ld bytes=%ld", call, count, bytes);
}

void expect_p2p(const char* kind, const char* call, const char* comm, int peer, int wpeer, int tag, long count,
                long bytes) {
  expect_line("%s %s comm=%s peer=%d wpeer=%d tag=%d count=%ld bytes=%ld", kind, call, comm, peer, wpeer, tag, count,
              bytes);
}

void expect_partial(void) {
  int rank;
  FILE* f = expect_file(&rank);
  if (!f) return;
  fprintf(f, "# partial\n");
  fflush(f);
}
