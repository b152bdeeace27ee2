// What each wrapped MPI call means to the decoder and the analyses. The table itself
// (kCallInfo) is generated from wrappers/mpi_functions.spec into call_table.cpp.
#pragma once
#include <cstdint>

#include "call_table.h"

namespace cpath {

enum class CallKind : uint8_t {
  Send, Recv, Sendrecv, Probe, Mrecv, Start, Complete, RequestFree, Cancel, Collective,
  CommNew, CommFree, Init, Finalize, Abort, Pcontrol, Rma, RmaSync, Io, Other,
  Gap,  // not an MPI call: collectives made while recording was off, counted (docs/trace-format.md)
  Pready  // MPI_Pready*: a partition of a partitioned send is ready (the send's data time)
};

// Whose entry a collective participant waits for (PAG rule 3 for collectives).
enum class Pattern : uint8_t { None, All, OneToAll, AllToOne, Scan, Exscan, Neighbor };

enum class SendMode : uint8_t { None, Standard, Synchronous, Buffered, Ready };

// Record fields, in the order they are encoded after the record header.
enum : uint32_t {
  kField_peer = 1u << 0,
  kField_tag = 1u << 1,
  kField_peer2 = 1u << 2,
  kField_tag2 = 1u << 3,
  kField_comm = 1u << 4,
  kField_root = 1u << 5,
  kField_bytes = 1u << 6,
  kField_req = 1u << 7,
  kField_req2 = 1u << 8,
  kField_reqlist = 1u << 9,
  kField_completions = 1u << 10,
  kField_flag = 1u << 11,
  kField_newcomm = 1u << 12,
  kField_aux = 1u << 13,
  kField_obj = 1u << 14,  // window or file handle
  kField_polls = 1u << 15,  // Test-family calls: the requests polled (docs/trace-format.md)
};

enum : uint32_t {
  kCallPersistent = 1u << 0,   // *_init: the request is a template activated by Start
  kCallNonBlocking = 1u << 1,  // creates a request completed later by a Wait/Test
  kCallMatchedProbe = 1u << 2, // Mprobe/Improbe: consumes a message into a message handle
  kCallTestLike = 1u << 3,     // may return without completing anything (flag = 0)
  kCallNoFree = 1u << 4,       // completes without releasing the request (Request_get_status)
  kCallInter = 1u << 5,        // creates an intercommunicator
  kCallGroupOnly = 1u << 6,    // only members of the new group take part (Comm_create_group)
  // General active-target synchronisation (docs/pag-rules.md rule 10): MPI_Win_post,
  // MPI_Win_start (both with their group's world ranks in the request list), MPI_Win_complete,
  // MPI_Win_wait and MPI_Win_test.
  kCallPscwPost = 1u << 7,
  kCallPscwStart = 1u << 8,
  kCallPscwComplete = 1u << 9,
  kCallPscwWait = 1u << 10,
  // MPI_Buffer_detach: returns once every message in the attached buffer has left, which for a
  // buffered send above the eager limit is once its receive is posted (rule 3).
  kCallBufferFlush = 1u << 11,
  // MPI_Psend_init: MPICH 4.0 moves a partitioned message in the sender's progress at any size
  // (a 32-byte one arrived when the sender entered MPI_Wait, 80 ms after its last MPI_Pready).
  kCallPartitioned = 1u << 12,
  // MPI_Grequest_complete: the call that completes its generalized request waits for it (a
  // helper thread's complete held the main thread's MPI_Wait 80-92 ms, both MPIs).
  kCallGrequestComplete = 1u << 13,
};

struct CallInfo {
  const char* name;
  CallKind kind;
  Pattern pattern;
  SendMode mode;
  uint32_t fields;
  uint32_t flags;
};

extern const CallInfo kCallInfo[kNumCalls];

inline const CallInfo& call_info(unsigned id) { return kCallInfo[id < kNumCalls ? id : 0]; }

// Header flag bits (low 3 bits of the record's first varint).
enum : unsigned {
  kFlagError = 1u << 0,      // the MPI call returned an error code
  kFlagAnySource = 1u << 1,  // receive/probe posted with MPI_ANY_SOURCE
  kFlagAnyTag = 1u << 2,     // receive/probe posted with MPI_ANY_TAG
  // MPI_Startall (no source of its own): the MPI replaced some of the handles, and the request
  // list holds the n handles before the call, then the n after it.
  kFlagHandlesRenamed = kFlagAnySource,
};
constexpr unsigned kHeaderFlagBits = 3;

// Canonical values of special ranks, independent of the MPI implementation's constants.
enum : int32_t { kRankAnySource = -1, kRankProcNull = -2, kRankRoot = -3, kRankOther = -4 };
constexpr int32_t kTagAny = -1;

}  // namespace cpath
