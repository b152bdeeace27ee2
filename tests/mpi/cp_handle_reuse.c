/* Rule 2's request handles across threads: a handle names its request from the end of the
   call that returned it. An MPI hands a freed request handle out again at once, so a thread
   that began its MPI_Irecv first but was descheduled inside it gets the handle that another
   thread's MPI_Wait freed meanwhile. Linking handles at the posting call's begin then made each
   thread's MPI_Wait complete the other's receive: the receive of a message sent 60 ms later
   "ended" before its send began, a clock-condition violation on one clock, and a Late Sender
   of 55 ms on the wrong thread's 10 us wait (MPICH's threads/pt2pt/multisend4 did this under
   load). Here the descheduling is made deterministic: this program interposes PMPI_Irecv (the
   tool's MPI_Irecv calls it) and holds thread A's call 20 ms before the MPI makes the request.

   Rank 0, per round: thread A posts MPI_Irecv(tag 1), held 20 ms, then MPI_Wait; thread B,
   5 ms after A entered, MPI_Irecv(tag 2) + MPI_Wait on a message already there. Rank 1 sends
   tag 2 at once and tag 1 after 60 ms. Each channel has one sending and one receiving thread.
   Rank 0 prints, per round, whether A and B were given the same handle (checks/cp_handle_reuse.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 3

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

typedef int (*irecv_fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
static __thread int hold_irecv;

int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request* req) {
  static irecv_fn real;
  if (!real) real = (irecv_fn)dlsym(RTLD_NEXT, "PMPI_Irecv");
  if (hold_irecv) sleep_ms(20);
  return real(buf, count, type, src, tag, comm, req);
}

static pthread_barrier_t both;
static int a_entered;
static MPI_Request handle_of[2][ROUNDS];

static void* thread_a(void* arg) {
  const int i = (int)(intptr_t)arg;
  int x = 0;
  MPI_Request r;
  hold_irecv = 1;
  pthread_barrier_wait(&both);
  __atomic_store_n(&a_entered, 1, __ATOMIC_SEQ_CST);
  MPI_Irecv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
  handle_of[0][i] = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return NULL;
}

static void* thread_b(void* arg) {
  const int i = (int)(intptr_t)arg;
  int x = 0;
  MPI_Request r;
  pthread_barrier_wait(&both);
  while (!__atomic_load_n(&a_entered, __ATOMIC_SEQ_CST)) {
  }
  sleep_ms(5);
  MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
  handle_of[1][i] = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return NULL;
}

int main(int argc, char** argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("cp_handle_reuse: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 0;
  }
  for (int i = 0; i < ROUNDS; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      pthread_t ta, tb;
      __atomic_store_n(&a_entered, 0, __ATOMIC_SEQ_CST);
      pthread_barrier_init(&both, NULL, 2);
      pthread_create(&ta, NULL, thread_a, (void*)(intptr_t)i);
      pthread_create(&tb, NULL, thread_b, (void*)(intptr_t)i);
      pthread_join(ta, NULL);
      pthread_join(tb, NULL);
      pthread_barrier_destroy(&both);
    } else if (rank == 1) {
      int one = 1, two = 2;
      MPI_Send(&two, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
      sleep_ms(60);
      MPI_Send(&one, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < ROUNDS; ++i)
      printf("round %d: %s\n", i, handle_of[0][i] == handle_of[1][i] ? "same handle" : "different handles");
  MPI_Finalize();
  return 0;
}
