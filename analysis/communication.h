// Communication matrices and message-size histograms (issue 10, seed 002), from the recorded
// calls only: point-to-point bytes and messages per (sender, receiver) in world ranks, counted
// at the sender; collectives per communicator, operation and rank; size histograms per kind.
// Each rank builds its own sparse row, and rank 0 gathers the rows: memory and time follow
// the pairs that talk, never P x P.
#pragma once
#include <mpi.h>

#include <cstdint>

#include "communication_report.h"
#include "ops.h"
#include "timeline.h"

namespace cpath {

// What one collective call moved on this rank, derived from the recorded payload `bytes`
// (docs/report.md lists the rule per operation); kBytesUnknown where the record cannot tell.
void collective_sent_received(unsigned call, uint64_t bytes, int32_t comm_size, bool is_root, bool inter,
                              int64_t* sent, int64_t* received);

// Collective over `comm`. The result is complete on rank 0 (present = false elsewhere).
CommunicationReport analyse_communication(const Timeline& tl, const OpTable& ops, uint32_t top, MPI_Comm comm);

}  // namespace cpath
