// Send modes in the PAG (docs/pag-rules.md rule 3): which sends wait for their receiver, and
// which transfers need the sender back in MPI. Pure functions, shared by the distributed
// replay and (until it has its own) the sequential reference.
#pragma once
#include <cstdint>
#include <string>

#include "call_info.h"
#include "eager_limit.h"
#include "rank_trace.h"

namespace cpath {

// Synchronous sends always wait for the matching receive to be posted; standard sends above
// the eager limit are rendezvous and wait too. Buffered, ready and eager sends never do.
inline bool send_waits_for_receiver(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Synchronous || (mode == SendMode::Standard && bytes > eager_limit);
}

// Rendezvous: the data moves only once both sides are in MPI. For a non-blocking send the
// receive then also depends on the sender's call that completes the send.
inline bool send_is_rendezvous(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return (mode == SendMode::Standard || mode == SendMode::Synchronous) && bytes > eager_limit;
}

// Whether the receive of a non-blocking send may wait for the sender's completing call.
// Rendezvous data does; so may a synchronous message of any size, whose protocol an MPI may
// advance only from the sender's side: MPICH 4.0 (ch4:ucx) delivered a 256-byte MPI_Issend
// only when its sender entered MPI_Wait, 31 ms after the receiver had begun waiting, while
// Open MPI delivers it at once (docs/pag-rules.md rule 3). A candidate that began after the
// receive ended is never followed, so where the data came at once nothing changes.
inline bool receive_may_wait_for_sender(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Synchronous || send_is_rendezvous(mode, bytes, eager_limit);
}

// A buffered send above the eager limit is sent from the attached buffer by MPI's progress,
// which runs only in the sender's later calls: its receive may wait for the sender's next call
// after the posting call (MPI_Pcontrol, which progresses nothing, skipped). Open MPI 4.1 held
// a 4097-byte MPI_Bsend until then (28-48 ms waits with the sender computing) and delivered
// 4000 bytes at once; MPICH 4.0 delivered most sizes at once.
inline bool receive_waits_for_senders_next_call(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Buffered && bytes > eager_limit;
}

inline uint64_t eager_limit_between(const EagerLimits& e, bool same_host) { return same_host ? e.intra : e.inter; }

// The limits recorded in a trace's meta data (eager_limit_intra/inter/source), or the defaults.
EagerLimits eager_limits_of(const RankTrace& t);
// A number naming the host a rank ran on (meta data "host"); equal hosts, equal numbers.
uint64_t host_id(const RankTrace& t);

}  // namespace cpath
