/* MPI-4's partitioned send as meant: worker threads mark partitions ready while the main
   thread already waits for the request. Rank 1 starts a 2-partition send to rank 0, creates 2
   threads (thread t computes 40 x (t+1) ms, then MPI_Pready(t)) and calls MPI_Wait before
   joining them; rank 0 receives (MPI_Wait), then computes 100 ms, so the path ends on rank 0.
   The data leaves with the last MPI_Pready, 80 ms in: rank 0's wait must lead to rank 1's
   thread's compute. The MPI_Wait began before both MPI_Pready calls (it is read first), and
   an analysis that let it complete the request there dropped them and put rank 0's wait on
   rank 1's MPI_Start. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "busy.h"

static MPI_Request req;

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  compute_ms(40.0 * (t + 1));
  MPI_Pready(t, req);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0, me = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (me == 0) printf("SKIPPED: no MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 77;
  }
  double buf[8] = {0};
  if (me == 1) {
    MPI_Psend_init(buf, 2, 4, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    pthread_t th[2];
    for (long t = 0; t < 2; ++t) pthread_create(&th[t], NULL, worker, (void*)t);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
    MPI_Request_free(&req);
  } else if (me == 0) {
    MPI_Precv_init(buf, 2, 4, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    compute_ms(100.0);
    MPI_Request_free(&req);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
