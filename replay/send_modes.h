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

// A ready send is sent as a standard one: Open MPI 4.1's ob1 held a 1000-byte MPI_Rsend (its
// receive posted first, as MPI requires) for the receiver's MPI_Wait 20 ms later, and one of
// 4041 bytes and more went by rendezvous; MPICH 4.0 returned at once up to 8 KiB, as for
// MPI_Send. Its receive was posted before it began, so only the receiver's progress (the call
// completing a non-blocking receive) can be what it waited for.
inline bool sent_as_standard(SendMode mode) { return mode == SendMode::Standard || mode == SendMode::Ready; }

// Synchronous sends always wait for the matching receive to be posted; standard (and ready)
// sends above the eager limit are rendezvous and wait too. Buffered and eager sends never need
// the receive (an eager one above the inline limit may still be held: send_may_be_held).
inline bool send_waits_for_receiver(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Synchronous || (sent_as_standard(mode) && bytes > eager_limit);
}

// An eager standard send above the inline limit: its data leaves at once (the receive never
// waits for the sender's later calls), but the MPI may hold the send until the receiver's
// progress takes the message, so the send may wait for the receiver like a rendezvous one: for
// the receive's posting call, or the call completing a non-blocking receive. Open MPI 4.1's
// ob1 held MPI_Send and MPI_Isend of 257-4040 bytes 20 ms for a computing receiver in about
// two of three tries (its fast boxes let the others through); where it did not hold, the
// receive was posted after the send ended, and a candidate that began after the call ended
// is never followed (rule 2).
inline bool send_may_be_held(SendMode mode, uint64_t bytes, uint64_t inline_limit, uint64_t eager_limit) {
  return sent_as_standard(mode) && bytes > inline_limit && bytes <= eager_limit;
}

// Rendezvous: the data moves only once both sides are in MPI. For a non-blocking send the
// receive then also depends on the sender's call that completes the send.
inline bool send_is_rendezvous(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return (sent_as_standard(mode) || mode == SendMode::Synchronous) && bytes > eager_limit;
}

// Whether the receive of a non-blocking send may wait for the sender's completing call.
// Rendezvous data does; so may a synchronous message of any size, whose protocol an MPI may
// advance only from the sender's side: MPICH 4.0 (ch4:ucx) delivered a 4-byte MPI_Issend
// only when its sender entered MPI_Wait, 50 ms after the receiver had begun waiting, while
// Open MPI delivers it at once (docs/pag-rules.md rule 3). A candidate that began after the
// receive ended is never followed; one the sender entered without computing after the post
// (kProgressGapNs) is not given at all.
inline bool receive_may_wait_for_sender(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Synchronous || send_is_rendezvous(mode, bytes, eager_limit);
}

// A buffered send above the eager limit is sent from the attached buffer by MPI's progress,
// which runs only in the sender's later calls: its receive may wait for the sender's next call
// after the posting call (MPI_Pcontrol, which progresses nothing, skipped). Open MPI 4.1 held
// a 4041-byte or larger MPI_Bsend until then (30-60 ms waits with the sender computing) and
// delivered 4040 bytes at once; MPICH 4.0 delivered most sizes at once.
inline bool receive_waits_for_senders_next_call(SendMode mode, uint64_t bytes, uint64_t eager_limit) {
  return mode == SendMode::Buffered && bytes > eager_limit;
}

// A sender that computed less than this between the posting call and the later call (its
// thread's time outside MPI) stayed in MPI, progressing, all along: the later call is no
// candidate of the receive. Otherwise a send followed at once by its MPI_Wait (or a loop of
// MPI_Bsend) would have the receive wait for that call rather than the post, and the wait
// states would blame the microseconds between the two calls instead of the computation
// before the post. 20 us: a few calls' bookkeeping, far below a scheduler time slice.
constexpr int64_t kProgressGapNs = 20000;
// The same for a non-blocking collective's member between its post and its next call (rule 4,
// progress). Larger: the recording and the library leave 6-30 us between an MPI_Iallreduce and
// the MPI_Wait right after it on the loaded 2-core machine (ws_known iallreduce), and a
// candidate that begins that little after the post moves the path by no more than the gap
// but names the wait's partner MPI_Wait instead of the post. Overlapped work worth finding is
// longer. Also the most work between two polls of a loop that waits for such a candidate
// (rule 5, pag.h).
constexpr int64_t kCollectiveProgressGapNs = 100000;
// A blocking call that lasted this long waited inside MPI, polling its progress engine, which
// moves every pending non-blocking collective too (rule 4, progress). Calls that had nothing
// to wait for (an eager MPI_Send, an MPI_Recv or MPI_Wait of a message already there) returned
// without polling: both MPIs held the others' MPI_Wait for the member's later call then.
constexpr int64_t kProgressWaitNs = 50000;

inline uint64_t eager_limit_between(const EagerLimits& e, bool same_host) { return same_host ? e.intra : e.inter; }

// The eager limit that applies to a send made by `call`: none for a partitioned message, which
// goes by rendezvous at any size. MPICH 4.0 sends its data only once the receiver's
// clear-to-send (issued in the receiver's MPI_Start) has reached the sender's progress: a
// 64-byte MPI_Psend_init instance waited 107-155 ms for a receiver computing before its
// MPI_Start, and a 32-byte message arrived only when its sender entered MPI_Wait, 80 ms after
// its last MPI_Pready.
inline uint64_t eager_limit_of_send(uint16_t call, uint64_t limit) { return (call_info(call).flags & kCallPartitioned) ? 0 : limit; }
inline uint64_t inline_limit_between(const EagerLimits& e, bool same_host) {
  return same_host ? e.inline_intra : e.inline_inter;
}

// The limits recorded in a trace's meta data (eager_limit_intra/inter/source), or the defaults.
EagerLimits eager_limits_of(const RankTrace& t);
// A number naming the host a rank ran on (meta data "host"); equal hosts, equal numbers.
uint64_t host_id(const RankTrace& t);

}  // namespace cpath
