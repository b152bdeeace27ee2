/* Per-call cost of MPI operations, measured inside the application: run it with and without
   libcpath (bench/call_overhead.py does both, alternating) and subtract.
   usage: call_overhead [iterations] [depth]   (2 or more ranks; ranks 0 and 1 do the point-to-point)
   depth: the MPI calls are made that many extra (non-inlined) frames below main, for the cost
   of stack=N call paths on deep stacks as in applications that call MPI through libraries.
   prints: "<pattern> <ns per MPI call on rank 0>" for pingpong, isend_irecv_waitall, allreduce */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long iters;
static int me, np;

static double per_call_ns(double seconds, long n, int calls_per_iter) {
  return seconds * 1e9 / ((double)n * calls_per_iter);
}

/* Ping-pong: rank 0 Send+Recv, rank 1 Recv+Send: 2 calls per iteration per rank. */
static void pingpong(void) {
  char buf[8] = {0}, rbuf[8];
  const int peer = me ^ 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (peer < np)
    for (long i = 0; i < iters; ++i) {
      if (me % 2 == 0) {
        MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      }
    }
  t = MPI_Wtime() - t;
  if (me == 0) printf("pingpong %.1f\n", per_call_ns(t, iters, 2));
}

/* Exchange: Irecv + Isend + Waitall: 3 calls per iteration per rank. */
static void exchange(void) {
  char buf[8] = {0}, rbuf[8];
  const int peer = me ^ 1;
  MPI_Request rq[2];
  MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 flags MPICH's (MPI_Status *)1 once inlined */
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (peer < np)
    for (long i = 0; i < iters; ++i) {
      MPI_Irecv(rbuf, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(buf, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, st);
    }
  t = MPI_Wtime() - t;
  if (me == 0) printf("isend_irecv_waitall %.1f\n", per_call_ns(t, iters, 3));
}

/* Allreduce of one double over all ranks. */
static void allreduce(void) {
  double x = me, y;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  t = MPI_Wtime() - t;
  if (me == 0) printf("allreduce %.1f\n", per_call_ns(t, iters, 1));
}

/* `d` more frames, then the body; the volatile keeps the compiler from turning it into a loop. */
static volatile int sink;
__attribute__((noinline)) static void descend(int d, void (*body)(void)) {
  if (d > 0) descend(d - 1, body);
  else body();
  sink = d;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  iters = argc > 1 ? atol(argv[1]) : 200000;
  const int depth = argc > 2 ? atoi(argv[2]) : 0;
  descend(depth, pingpong);
  descend(depth, exchange);
  descend(depth, allreduce);
  MPI_Finalize();
  return 0;
}
