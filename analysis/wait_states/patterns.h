// Wait-state patterns (docs/report.md, "Wait states"): Scalasca's names for the time a call
// spends waiting for a call on another rank. Every instance is a PAG end edge that goes to a
// partner (docs/pag-rules.md rule 2): the call waited from its begin (or its wait start, rule 5)
// until the partner's begin. Which pattern it is depends only on the op that partner belongs
// to; each family's rule is in the file named after it (late_sender.cpp, late_receiver.cpp,
// wait_at_nxn.cpp, late_broadcast.cpp, early_reduce.cpp, early_scan.cpp, active_target.cpp for
// Late Post and Early Wait). Late Sender / Wrong
// Order refines Late Sender (wrong_order.cpp), Misarrangement refines both (misarrangement.cpp);
// Barrier and NxN Completion (completion.cpp) and
// close send-receive pairs (close_send_recv.cpp) are time inside a call after its partners
// came, found by their own rules.
#pragma once
#include <cstdint>

#include "ops.h"

namespace cpath {

enum class WaitPattern : uint8_t {
  LateSender,
  LateReceiver,
  WaitAtBarrier,
  WaitAtNxN,
  LateBroadcast,
  EarlyReduce,
  EarlyScan,
  WaitAtNeighbours,
  WaitAtInit,
  // Refinements and the patterns that are not a wait for a partner's begin (their own files:
  // wrong_order.cpp, misarrangement.cpp, completion.cpp, close_send_recv.cpp). After WaitAtInit so the order
  // that decides between two ops of one call above is unchanged.
  LateSenderWrongOrder,
  MisarrangementSend,   // refine Late Sender / Wrong Order (misarrangement.cpp)
  MisarrangementBsend,
  BarrierCompletion,
  NxNCompletion,
  CloseSendRecv,
  // General active-target synchronisation (docs/pag-rules.md rule 10; active_target.cpp).
  LatePost,
  EarlyWait,
  WaitForProgress,
  // A rooted, scan or neighbourhood collective's member that waited for a member its pattern does not wait
  // for: the MPI's algorithm synchronised them (rule 4; wait_in_collective.cpp).
  WaitInCollective,
  Count
};
constexpr int kNumWaitPatterns = static_cast<int>(WaitPattern::Count);

struct WaitPatternInfo {
  const char* name;  // as users know it (Scalasca's where it has one)
  const char* hint;  // one line: what usually removes it
};
const WaitPatternInfo& wait_pattern_info(WaitPattern p);

// False for the patterns that are time inside a call rather than a wait for a partner's begin
// (completion, close send-receive pairs): they have no root cause on another rank.
inline bool waits_for_partner(WaitPattern p) {
  return p != WaitPattern::BarrierCompletion && p != WaitPattern::NxNCompletion && p != WaitPattern::CloseSendRecv;
}

// The family rules: true when a wait for a partner of `op` belongs to the family, with the
// pattern. `call` is the name of the call that carries the op's arguments ("MPI_Ibarrier").
bool active_target_rule(const Op& op, WaitPattern* out);
bool late_sender_rule(const Op& op, WaitPattern* out);
bool late_receiver_rule(const Op& op, WaitPattern* out);
bool wait_at_nxn_rule(const Op& op, const char* call, WaitPattern* out);
bool late_broadcast_rule(const Op& op, WaitPattern* out);
bool early_reduce_rule(const Op& op, WaitPattern* out);
bool early_scan_rule(const Op& op, WaitPattern* out);
// Refines a collective's family when its partner is one its pattern does not wait for.
bool wait_in_collective_rule(const Op& op, bool beyond_pattern, WaitPattern* out);

// The pattern of a wait for a partner of `op` (op kNoEvent: MPI_Init's partner). False for an
// op no family claims (it cannot wait for a partner). beyond_pattern: the partner is no
// candidate of the op's collective pattern (PartnerTable::beyond_pattern_at).
bool classify_wait(const OpTable& ops, const Timeline& tl, uint32_t op, bool beyond_pattern, WaitPattern* out);

}  // namespace cpath
