/* Known answer for the critical path by user region (include/cpath.h), linked with the stub
   library like a user's program (the harness also runs it without libcpath).
     phase setup   every rank computes 5 ms, barrier
     phase solve   4 x region solve { region compute { rank 2 computes 60 ms, the others 10 ms }
                                      region exchange { MPI_Allreduce } }
     phase output  an end without a begin (ignored, counted), a region left open at MPI_Finalize
   A second thread sits in region "background" (no MPI) the whole time: regions are per thread,
   so it never names the main thread's path. The names "compute" and "exchange" are passed in
   one reused stack buffer, "exchange" is closed with cpath_region_end(NULL). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cpath.h"
#include "expect.h"

#include "busy.h"

static volatile int stop_worker = 0;
static void* worker(void* arg) {
  (void)arg;
  cpath_region_begin("background");
  const struct timespec ms = {0, 1000000};
  while (!stop_worker) nanosleep(&ms, NULL);
  cpath_region_end("background");
  return NULL;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int slow = np > 2 ? 2 : np - 1;
  pthread_t th;
  pthread_create(&th, NULL, worker, NULL);

  cpath_phase("setup");
  compute_ms(5.0);
  MPI_Barrier(MPI_COMM_WORLD);

  cpath_phase("solve");
  double v = me, s = 0;
  char name[32];
  for (int it = 0; it < 4; ++it) {
    cpath_region_begin("solve");
    strcpy(name, "compute");
    cpath_region_begin(name);
    compute_ms(me == slow ? 60.0 : 10.0);
    cpath_region_end(name);
    strcpy(name, "exchange");
    cpath_region_begin(name);
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    cpath_region_end(NULL);
    cpath_region_end("solve");
  }

  cpath_phase("output");
  cpath_region_end("never-begun");
  cpath_region_begin("left-open");
  compute_ms(2.0);
  MPI_Barrier(MPI_COMM_WORLD);
  stop_worker = 1;
  pthread_join(th, NULL);

  expect_partial();
  expect_line("region begin=4 end=4 name=compute");
  expect_line("region begin=4 name=exchange");
  expect_line("region end=4 name=(innermost)");
  expect_line("region begin=4 end=4 phase=1 name=solve"); /* a region and a phase */
  expect_line("region begin=1 end=1 name=background");
  expect_line("region end=1 name=never-begun");
  expect_line("region begin=1 name=left-open");
  expect_line("region phase=1 name=setup");
  expect_line("region phase=1 name=output");
  if (me == 0) printf("region_known done, sum %g\n", s);
  MPI_Finalize();
  return 0;
}
