#include "patterns.h"

#include "call_info.h"

namespace cpath {

const WaitPatternInfo& wait_pattern_info(WaitPattern p) {
  static const WaitPatternInfo kInfo[kNumWaitPatterns + 1] = {
      {"Late Sender", "the receiver waits for the send: post the receive later (MPI_Irecv + MPI_Wait after independent work) or move work off the sender"},
      {"Late Receiver", "a synchronous or rendezvous send (or the MPI_Buffer_detach after a large MPI_Bsend) waits for its receive: post the receive earlier (MPI_Irecv) or use MPI_Isend and wait later"},
      {"Wait at Barrier", "ranks wait at a barrier for the last one: balance the work before it, or drop the barrier if nothing needs it"},
      {"Wait at NxN", "ranks wait in an all-to-all collective for the last one: balance the work before it, or use the non-blocking form and overlap"},
      {"Late Broadcast", "members wait for the root of a one-to-all collective: let the root enter earlier (move its extra work after the call)"},
      {"Early Reduce", "the root of an all-to-one collective waits for the members: give the root its work before the call, or use the non-blocking form"},
      {"Early Scan", "ranks wait in a scan for lower ranks: balance the work before it"},
      {"Wait at Neighbours", "ranks wait in a neighbourhood collective for an in-neighbour: balance the neighbours' work or overlap with the non-blocking form"},
      {"Wait at MPI_Init", "ranks wait in MPI_Init for the last rank to start: see the start-up section (slow loading or launching)"},
      {"Late Sender / Wrong Order", "the receive waits for a message sent after another one it receives later: receive in the order they are sent (or MPI_Irecv both and MPI_Waitany)"},
      {"Misarrangement (MPI_Send)", "the receive waits for a message sent after one from the same sender that it receives later: receive in the order the sender sends, or send in the order the receiver receives"},
      {"Misarrangement (MPI_Bsend)", "the receive waits for a message sent after one from the same sender that it receives later: receive in the order the sender sends, or send in the order the receiver receives"},
      {"Barrier Completion", "ranks stay in a barrier after the first member left it: drop the barrier if nothing needs it, or use MPI_Ibarrier"},
      {"NxN Completion", "ranks stay in an all-to-all collective after the first member left it: use the non-blocking form and overlap its completion"},
      {"Close Send-Recv", "a send and a receive with the same rank follow each other: combine them into MPI_Sendrecv"},
      {"Late Post", "an origin waits in MPI_Win_start for the target's MPI_Win_post: let the target post earlier (its work after MPI_Win_post) or give the origin work before MPI_Win_start"},
      {"Early Wait", "a target waits in MPI_Win_wait for the origins' MPI_Win_complete: do independent work before MPI_Win_wait, or balance the origins' work in the epoch"},
      {"Wait for Progress", "an origin's MPI_Win_complete waits for the target to enter MPI (its MPI_Win_wait): call MPI_Win_wait (or MPI_Win_test) earlier on the target, or use an MPI with asynchronous progress"},
      {"Wait in Collective", "a rooted, scan or neighbourhood collective's member waited for a member its pattern does not wait for (a root sending above the eager limit waits for its receivers, a neighbour's large send for its receiver): balance the work before it, or use the non-blocking form and overlap"},
      {"?", ""}};
  const int i = static_cast<int>(p);
  return kInfo[i >= 0 && i < kNumWaitPatterns ? i : kNumWaitPatterns];
}

bool classify_wait(const OpTable& ops, const Timeline& tl, uint32_t op, bool beyond_pattern, WaitPattern* out) {
  if (op == kNoEvent) {
    *out = WaitPattern::WaitAtInit;
    return true;
  }
  if (op >= ops.ops.size()) return false;
  const Op& o = ops.ops[op];
  const char* call = o.args != kNoEvent && o.args < tl.ev.size() ? call_info(tl.ev[o.args].e.call).name : nullptr;
  return wait_in_collective_rule(o, beyond_pattern, out) || active_target_rule(o, out) || late_sender_rule(o, out) || late_receiver_rule(o, out) || wait_at_nxn_rule(o, call, out) ||
         late_broadcast_rule(o, out) || early_reduce_rule(o, out) || early_scan_rule(o, out);
}

}  // namespace cpath
