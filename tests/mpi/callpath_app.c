/* Call sites through a library (option skip=, issue 14): the program calls MPI only through
   libmylib.so. Rank 1 computes 60 ms before each library call, so the calls are on the
   critical path; with skip=libmylib.so their call sites must be this file's lines (marked
   CALL-SITE below), without it the library's. The argument is only a label for the check,
   except "paths": call paths (option stack=N, no skip=). The same library call is made from two
   lines of this file (PATH-A, PATH-B) and rank 1 computes 300 ms before the first and 100 ms
   before the second, twice: the critical path's compute ending at the call made via PATH-A is
   600 ms, via PATH-B 200 ms; with stack=1 both are one call site, the library's line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double mylib_sum(double v, MPI_Comm comm);
double mylib_shift(double v, MPI_Comm comm);

#include "busy.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double v = me, s = 0;
  if (argc > 1 && argv[1][0] == 'p') {
    /* A loaded machine can stretch a compute: the check's truth is what rank 1 measured. */
    double a_ms = 0, b_ms = 0, t;
    for (int it = 0; it < 2; ++it) {
      t = now_ms();
      compute_ms(me == 1 ? 300.0 : 5.0);
      a_ms += now_ms() - t;
      s += mylib_sum(v, MPI_COMM_WORLD); /* PATH-A */
      t = now_ms();
      compute_ms(me == 1 ? 100.0 : 5.0);
      b_ms += now_ms() - t;
      s += mylib_sum(v, MPI_COMM_WORLD); /* PATH-B */
    }
    const char* dir = getenv("CPATH_TEST_EXPECT_DIR");
    if (me == 1 && dir && getenv("LIBCPATH_OPTIONS")) { /* the run with libcpath, under the harness */
      char path[4096];
      snprintf(path, sizeof path, "%s/callpath_times.txt", dir);
      FILE* f = fopen(path, "w");
      if (f) {
        fprintf(f, "A %.6f\nB %.6f\n", a_ms * 1e-3, b_ms * 1e-3);
        fclose(f);
      }
    }
    if (me == 0) printf("callpath_app %s done\n", argv[1]);
    MPI_Finalize();
    return s < -1 ? 1 : 0;
  }
  for (int it = 0; it < 3; ++it) {
    compute_ms(me == 1 ? 60.0 : 5.0);
    s += mylib_sum(v, MPI_COMM_WORLD); /* CALL-SITE sum */
    compute_ms(me == 1 ? 60.0 : 5.0);
    s += mylib_shift(v, MPI_COMM_WORLD); /* CALL-SITE shift */
  }
  if (me == 0) printf("callpath_app %s done\n", argc > 1 ? argv[1] : "");
  MPI_Finalize();
  return s < -1 ? 1 : 0;
}
