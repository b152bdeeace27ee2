// Distributed point-to-point replay: every send's (channel, sequence number, begin, mode,
// size, host) goes to its receiver in one exchange; receivers pair them with their numbered
// receives, decide what the send mode means (rule 3) and answer with the receive's begin in a
// second exchange. Result: partners for every matched op. No application message is re-sent,
// so nothing the application did (eager sends, unmatched messages, cancelled requests) can
// make the replay block.
#pragma once
#include <mpi.h>

#include <vector>

#include "eager_limit.h"
#include "ops.h"
#include "p2p_channels.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

// What a sender tells the receiver about one send: the same 64 bytes on the wire and in the
// receiver's array (no parsing, no padding). The sender's host travels once per rank.
struct SendRecord {
  uint64_t comm = 0;  // the channel: ChannelKey's fields
  int64_t post_begin = 0;
  int64_t done_begin = 0;
  uint64_t bytes = 0;
  int32_t src = 0, dst = 0, tag = 0;
  uint32_t seq = 0, op = 0, post_event = 0;
  // The call that completed it, if not the posting call; for a buffered send the sender
  // thread's next call after the posting call (send_modes.h), if any.
  uint32_t done_event = kNoEvent;
  uint16_t call = 0;  // the call carrying its arguments (names the mode as the program wrote it)
  uint8_t mode = static_cast<uint8_t>(SendMode::Standard);
  uint8_t flags = 0;  // kSendBlocking: completed by the call that posted it; kSendFreed: released
                      // by MPI_Request_free while active (done_event unknown)
  ChannelKey key() const { return ChannelKey{comm, src, dst, tag}; }
  SendMode send_mode() const { return static_cast<SendMode>(mode); }
};
static_assert(sizeof(SendRecord) == 64, "one send in 64 bytes");
// kSendProgressed: the sender computed less than kProgressGapNs between the post and
// done_event's call (send_modes.h), which then is no candidate of the receive.
constexpr uint8_t kSendBlocking = 1, kSendFreed = 2, kSendProgressed = 4;

// The receiver's reading of one matched pair (rule 3), pure.
struct MatchVerdict {
  bool sender_waits = false;  // the send's end depends on the receive's posting call
  // ... an eager send the MPI may hold for the receiver's progress (send_may_be_held): the
  // same candidates, but the send never needed the receive, so it stays a local send
  // (Misarrangement) and the receive still sees only its posting call.
  bool sender_held = false;
  Partner extra;              // valid: the receive also depends on the sender's later call (rule 3)
  // The receive depends on the sender's completing call, but the send was never completed or
  // was freed while active: that edge is missing (the only case where an unknown completion
  // changes the graph; rule 9).
  bool completion_unknown = false;
};
MatchVerdict judge_match(const SendRecord& s, uint64_t sender_host, int sender_rank, OpKind receiver_kind,
                         uint64_t receiver_host, const EagerLimits& limits);

// The send a receive or peek was matched with: sender's world rank and op index there.
struct SenderOp {
  int32_t rank = -1;
  uint32_t op = 0;
};

// Collective over comm. partners->of_op has one entry per op; fills those of sends, receives
// and peeks (for a matched receive or peek: the matched send's posting call, which is also the
// clock-condition repair's constraint), and the extra candidates. senders (optional, one entry
// per op): the matched
// send of each receive and peek as (world rank, op index there), for the matches=1 dump that
// tests compare with what the program itself received.
void replay_point_to_point(const Timeline& tl, const OpTable& ops, const NumberedOps& numbered, MPI_Comm comm,
                           PartnerTable* partners, ReplayStats* stats, std::vector<SenderOp>* senders = nullptr);

}  // namespace cpath
