/* Known answer for what-if scenarios on activities inside user regions (docs/what-if.md).
     5 x { region solve { every rank computes 40 ms;
                          the slow rank (2) also region extra { 100 ms } }
           region halo { MPI_Allreduce } }
   Every compute interval between two Allreduces is split by the regions: on the slow rank
   into "compute in region solve ..." (40 ms and the markers' moments) and "compute in region
   extra ..." (100 ms). The slow rank comes last to every Allreduce by far, so in the model:
   extra 2x faster gains half the extra time of the intervals between two Allreduces
   (iterations 1..4), solve 2x faster half the solve time there, extra at 0.25 three quarters of
   the extra time. The slow rank prints what it measured of those parts (the intervals after the
   first Allreduce), for the check to compare. Keep the MPI_Allreduce on line 37: the test's
   options name it. */
#include <mpi.h>
#include <stdio.h>

#include "cpath.h"

#include "busy.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int slow = np > 2 ? 2 : np - 1;
  double solve_ms = 0, extra_ms = 0, v = me, s = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 5; ++it) {
    double t0 = now_ms();
    cpath_region_begin("solve");
    compute_ms(40.0);
    double t1 = now_ms();
    if (me == slow) cpath_region_begin("extra"), compute_ms(100.0), cpath_region_end("extra");
    double t2 = now_ms();
    cpath_region_begin("halo");
    double t3 = now_ms();
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    cpath_region_end("halo");
    cpath_region_end("solve");
    if (it > 0) solve_ms += (t1 - t0) + (t3 - t2), extra_ms += t2 - t1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == slow) printf("region_whatif rank %d solve_ms %.3f extra_ms %.3f\n", me, solve_ms, extra_ms);
  MPI_Finalize();
  return 0;
}
