// Collective calls made while recording is off (MPI_Pcontrol(0), or stopped at the memory cap)
// are counted per communicator (or window/file) and written as gap records when recording
// resumes and at MPI_Finalize, so every member numbers the collective instances of a
// communicator alike and the replay pairs them by sequence number, not by position
// (docs/pag-rules.md rule 8). Only the not-recording branch of the wrappers comes here: the
// recording path never does a lookup.
#pragma once
#include <cstdint>

#include "thread_state.h"

namespace cpath {

// One collective call on communicator `comm_bits` (or, when 0, on window/file `obj_bits`).
void unrecorded_collective(uint64_t comm_bits, uint64_t obj_bits);
// Writes the counts gathered so far as gap records into ts's stream, stamped `t` (ticks), and
// forgets them. `force_room`: at MPI_Finalize, when the memory cap may have stopped recording.
void flush_unrecorded(ThreadState* ts, uint64_t t, bool force_room);
// How many gap records a flush would write now.
size_t unrecorded_pending();

}  // namespace cpath
