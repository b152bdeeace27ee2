// One decoded trace record. Times are raw ticks of the recording thread's clock; the
// analysis converts them (TickModel, then the clock-alignment model).
#pragma once
#include <cstdint>

namespace cpath {

struct Event {
  uint64_t t_begin = 0;
  uint64_t t_end = 0;
  uint64_t callsite = 0;  // absolute return address in the recording process
  uint64_t bytes = 0;
  uint64_t comm = 0;      // communicator handle bits (see CommRecord for resolution)
  uint64_t req = 0;       // request or message handle created / used
  uint64_t req2 = 0;      // request created by Imrecv
  uint64_t obj = 0;       // window or file handle
  int64_t aux = 0;        // Pcontrol level, Init_thread provided level
  int32_t peer = -1, tag = -1, peer2 = -1, tag2 = -1, root = -1;
  int32_t newcomm = 0;    // communicator record index + 1 (0 = MPI_COMM_NULL)
  uint32_t list_begin = 0, list_count = 0;  // completions or request list
  uint32_t poll_begin = 0, poll_count = 0;  // Test family: requests polled (DecodedThread::polls)
  uint32_t thread = 0;
  uint16_t call = 0;
  uint8_t flags = 0;      // kFlag* header bits
  uint8_t flag = 0;       // Iprobe/Improbe flag
};

// A request completed by a Wait/Test call, with the status it returned.
struct Completion {
  uint64_t req = 0;
  int32_t source = -1;
  int32_t tag = -1;
  bool cancelled = false;
};

// Collective calls made while recording was off (MPI_Pcontrol(0), memory cap), counted on one
// communicator or window/file and written when recording resumed or at MPI_Finalize
// (docs/pag-rules.md rule 8). Not an event: it only advances sequence numbers.
struct GapRecord {
  uint32_t before = 0;  // index (in the thread's events) of the next recorded call
  uint64_t t = 0;       // when it was written (ticks)
  int32_t comm = -1;    // communicator record index, -1 if the calls were on a window/file or unknown
  uint64_t obj = 0;     // window or file handle, or 0
  uint64_t count = 0;   // collective calls not recorded
};

}  // namespace cpath
