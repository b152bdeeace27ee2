// Option matches=1: each rank writes the point-to-point pairs the replay matched, numbered the
// way a program can number its own calls, so a test program that sends payloads naming their
// send can check the matching exactly (tests/truth/, tests/mpi/cp_random_app.c).
//
// DIR/matches.<rank>.txt, one line per operation, in posting order:
//   send <send ordinal> <op>                       every send this rank posted
//   recv <receive ordinal> <sender world rank> <sender op>   (-1 -1: not matched)
//   peek <probe ordinal> <sender world rank> <sender op>     Probe/Iprobe that found a message
// Ordinals count this rank's sends, receives and successful non-matching probes separately in
// posting order: Send/Isend/Ssend/Bsend/Rsend and their I- forms, each Start of a persistent
// send, and the send half of Sendrecv are sends; Recv/Irecv, each Start of a persistent
// receive, Mprobe/Improbe that found a message and the receive half of Sendrecv are receives.
// The sender op is translated to the sender's send ordinal through the sender's own file.
#pragma once
#include <string>
#include <vector>

#include "ops.h"
#include "p2p_replay.h"

namespace cpath {

void write_matches_file(const std::string& path, const OpTable& ops, const std::vector<SenderOp>& senders);

}  // namespace cpath
