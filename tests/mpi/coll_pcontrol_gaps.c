/* Collection test: collectives made while recording is paused become gap records with the right
   count per communicator (docs/pag-rules.md rule 8), however they were counted: more
   communicators than a thread's lock-free table holds (the rest go to the shared map), a
   communicator created during the pause (a collective on its parent, and new records that
   invalidate the cached ones), and a communicator used again after that.
   checks/coll_pcontrol_gaps.py compares the gap counts with the "gap_counts" directive. */
#include <mpi.h>
#include <stdio.h>

#include "coll_tally.h"

#define NDUP 20

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm dup[NDUP], during;
  for (int i = 0; i < NDUP; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &dup[i]);
  MPI_Pcontrol(0);
  /* paused */
  for (int i = 0; i < NDUP; ++i)
    for (int k = 0; k <= i; ++k) MPI_Barrier(dup[i]); /* i + 1 on dup[i] */
  MPI_Comm_dup(MPI_COMM_WORLD, &during);             /* 1 on world */
  MPI_Barrier(during);
  MPI_Barrier(during);   /* 2 on during */
  MPI_Barrier(dup[0]);   /* dup[0]: 2 in all */
  int x = r, y = 0;
  for (int k = 0; k < 3; ++k) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* world: 4 in all */
  MPI_Pcontrol(1);
  MPI_Comm_free(&during);
  for (int i = 0; i < NDUP; ++i) MPI_Comm_free(&dup[i]);
  /* The counts, sorted: dup[i] i + 1 (dup[0] 2), during 2, world 4. */
  char line[256];
  int len = snprintf(line, sizeof line, "gap_counts world=4 all=");
  int counts[NDUP + 2], m = 0;
  counts[m++] = 2;
  for (int i = 1; i < NDUP; ++i) counts[m++] = i + 1;
  counts[m++] = 2;
  counts[m++] = 4;
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b)
      if (counts[b] < counts[a]) {
        int t = counts[a];
        counts[a] = counts[b];
        counts[b] = t;
      }
  for (int a = 0; a < m && len < (int)sizeof line - 8; ++a) len += snprintf(line + len, sizeof line - (size_t)len, "%s%d", a ? "," : "", counts[a]);
  tally_directive("%s", line);
  if (r == 0) printf("coll_pcontrol_gaps: %d ranks, sum %d\n", n, y);
  MPI_Finalize();
  return 0;
}
