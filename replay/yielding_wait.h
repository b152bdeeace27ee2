// Waiting for the analysis's own messages without taking the CPU from the rank we wait for.
//
// MPICH's ch4 device (and Open MPI without mpi_yield_when_idle) spins inside a blocking
// receive. When ranks outnumber cores, the rank being waited for may be the one that needs
// this core: a latency-bound exchange (the what-if forward pass sends one message per
// dependency) then advances one scheduler time slice per hand-off. On halo_bench at 4 ranks on
// 2 cores under MPICH 4.0, the forward pass took 96 s for 20k iterations that way. These
// helpers poll, and after a short spin give the core away (sched_yield) between polls; with a
// core per rank the yield returns at once and costs a system call.
#pragma once
#include <mpi.h>

#include "tool_collectives.h"

namespace cpath {

// PMPI_Probe that yields the core while nothing has arrived.
inline void probe_yielding(int source, int tag, MPI_Comm comm, MPI_Status* st) {
  poll_yielding([&] {
    int flag = 0;
    PMPI_Iprobe(source, tag, comm, &flag, st);
    return flag != 0;
  });
}

// PMPI_Test of one request until it completes, yielding while it has not; false at
// `deadline` (PMPI_Wtime seconds) with the request still active.
inline bool test_yielding_until(MPI_Request* r, MPI_Status* st, double deadline) {
  return poll_yielding(
      [&] {
        int flag = 0;
        PMPI_Test(r, &flag, st);
        return flag != 0;
      },
      deadline);
}

// PMPI_Recv of a message of at most `count` elements, yielding while it has not arrived.
inline void recv_yielding(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* st) {
  MPI_Status probed;
  probe_yielding(source, tag, comm, &probed);
  PMPI_Recv(buf, count, type, probed.MPI_SOURCE, tag, comm, st ? st : MPI_STATUS_IGNORE);
}

}  // namespace cpath
