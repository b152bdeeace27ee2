// The tool's own collectives (options at MPI_Init, the whole analysis in MPI_Finalize):
// non-blocking, waited for by polls that give the core away after a short spin.
//
// MPICH's ch4 device, and Open MPI without mpi_yield_when_idle, spin inside a blocking
// collective. When ranks outnumber cores, a rank spinning there holds a core that the ranks it
// waits for need, and each collective advances by scheduler time slices: under MPICH 4.0 with
// 7 ranks on 2 cores an 8-byte MPI_Allreduce took 27 ms (4 ms at 4 ranks), the same
// MPI_Iallreduce waited for this way 0.06 ms (Open MPI: 0.02 ms either way). The analysis makes
// dozens of collectives, so a tiny program's MPI_Finalize took 2 s at 7 ranks.
//
// MPI never matches a blocking collective with a non-blocking one: every rank must reach a
// given call site through these functions (they are SPMD code, so they do), and the tool never
// mixes them with blocking PMPI_ collectives at one site.
#pragma once
#include <mpi.h>
#include <sched.h>

#include <cmath>

namespace cpath {

constexpr unsigned kSpinsBeforeYield = 64;

// The one waiting loop of the analysis's own communication: calls done() until it returns
// true, giving the core away (sched_yield) after a short spin; false once `deadline`
// (PMPI_Wtime seconds) has passed.
template <class Done>
bool poll_yielding(Done&& done, double deadline = HUGE_VAL) {
  for (unsigned spins = 0;; ++spins) {
    if (done()) return true;
    if (spins >= kSpinsBeforeYield) {
      if (deadline != HUGE_VAL && (spins & 63) == 0 && PMPI_Wtime() > deadline) return false;
      sched_yield();
    }
  }
}

// PMPI_Waitall that yields the core while requests are pending.
inline int waitall_yielding(int n, MPI_Request* reqs) {
  int rc = MPI_SUCCESS;
  poll_yielding([&] {
    int flag = 0;
    rc = PMPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE);
    return rc != MPI_SUCCESS || flag;
  });
  return rc;
}
inline int wait_request_yielding(MPI_Request* r) { return waitall_yielding(1, r); }

inline int wait_started(int rc, MPI_Request* r) { return rc == MPI_SUCCESS ? wait_request_yielding(r) : rc; }

inline int tool_barrier(MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ibarrier(c, &r), &r);
}
inline int tool_bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ibcast(b, n, t, root, c, &r), &r);
}
inline int tool_allreduce(const void* s, void* b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Iallreduce(s, b, n, t, op, c, &r), &r);
}
inline int tool_reduce(const void* s, void* b, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ireduce(s, b, n, t, op, root, c, &r), &r);
}
inline int tool_scan(const void* s, void* b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Iscan(s, b, n, t, op, c, &r), &r);
}
inline int tool_exscan(const void* s, void* b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Iexscan(s, b, n, t, op, c, &r), &r);
}
inline int tool_reduce_scatter(const void* s, void* b, const int* counts, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ireduce_scatter(s, b, counts, t, op, c, &r), &r);
}
inline int tool_gather(const void* s, int sn, MPI_Datatype st, void* b, int rn, MPI_Datatype rt, int root, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Igather(s, sn, st, b, rn, rt, root, c, &r), &r);
}
inline int tool_gatherv(const void* s, int sn, MPI_Datatype st, void* b, const int* rn, const int* displs, MPI_Datatype rt,
                        int root, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Igatherv(s, sn, st, b, rn, displs, rt, root, c, &r), &r);
}
inline int tool_allgather(const void* s, int sn, MPI_Datatype st, void* b, int rn, MPI_Datatype rt, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Iallgather(s, sn, st, b, rn, rt, c, &r), &r);
}
inline int tool_alltoall(const void* s, int sn, MPI_Datatype st, void* b, int rn, MPI_Datatype rt, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ialltoall(s, sn, st, b, rn, rt, c, &r), &r);
}
inline int tool_alltoallv(const void* s, const int* sn, const int* sd, MPI_Datatype st, void* b, const int* rn,
                          const int* rd, MPI_Datatype rt, MPI_Comm c) {
  MPI_Request r;
  return wait_started(PMPI_Ialltoallv(s, sn, sd, st, b, rn, rd, rt, c, &r), &r);
}

}  // namespace cpath
