// Distributed point-to-point replay: every send's (channel, sequence number, begin) goes to
// its receiver in one exchange; receivers pair them with their numbered receives and answer
// with the receive's begin in a second exchange. Result: a Partner for every matched op.
// No application message is re-sent, so nothing the application did (eager sends, unmatched
// messages, cancelled requests) can make the replay block.
#pragma once
#include <mpi.h>

#include <vector>

#include "ops.h"
#include "p2p_channels.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

// partners must have one entry per op; fills those of sends, receives and peeks.
// matched_sends (optional, one entry per op): for every matched receive and peek, the matched
// send's posting call (the clock-condition repair's constraint, whatever the PAG candidates).
void replay_point_to_point(const Timeline& tl, const OpTable& ops, const NumberedOps& numbered, MPI_Comm comm,
                           std::vector<Partner>* partners, ReplayStats* stats,
                           std::vector<Partner>* matched_sends = nullptr);

}  // namespace cpath
