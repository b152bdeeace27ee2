// Close send-receive pairs (seed 001, 3.2.4): a blocking send to rank j followed by a blocking
// receive from j on the same communicator (or the reverse), the second beginning less than
// kCloseSendRecvNs after the first ended. MPI_Sendrecv would run both transfers at once
// (full-duplex links) instead of one after the other; the instance's time is the pair's, from
// the first call's begin to the second's end: what the combined call could overlap, at most.
// Local to the rank: its own timeline and ops.
#include <algorithm>

#include "wait_states.h"

namespace cpath {

namespace {

// The one point-to-point op a blocking send or receive call posted and completed, or null.
const Op* blocking_p2p(const OpTable& ops, uint32_t c) {
  if (ops.done_begin[c + 1] - ops.done_begin[c] != 1) return nullptr;
  const Op& op = ops.ops[ops.done_ops[ops.done_begin[c]]];
  if ((op.kind != OpKind::Send && op.kind != OpKind::Recv) || op.post != c || op.peer < 0 || op.cancelled) return nullptr;
  if (is_pscw_tag(op.tag)) return nullptr;  // a window's synchronisation (rule 10): no Sendrecv replaces it
  return &op;
}

}  // namespace

void find_close_send_recv(const Timeline& tl, const OpTable& ops, const std::vector<uint32_t>& path_calls, int me,
                          std::vector<WaitInstance>* out) {
  for (uint32_t c = 0; c < tl.ev.size(); ++c) {
    const uint32_t p = tl.prev[c];
    // A thread's first call follows another thread's (rule 1): two threads' calls are no pair
    // one MPI_Sendrecv could replace.
    if (p == kNoEvent || tl.slot(p) != tl.slot(c)) continue;
    const Op* second = blocking_p2p(ops, c);
    const Op* first = second ? blocking_p2p(ops, p) : nullptr;
    if (!first || first->kind == second->kind || first->comm != second->comm || first->peer != second->peer) continue;
    if (tl.ev[c].begin - tl.ev[p].end >= kCloseSendRecvNs) continue;
    WaitInstance w;
    w.event = c;
    w.op = static_cast<uint32_t>(second - ops.ops.data());
    w.partner_rank = me;  // the pair's first call, on this rank
    w.partner_event = p;
    w.wait_from = tl.ev[p].begin;
    w.partner_begin = tl.ev[c].end;
    w.pattern = WaitPattern::CloseSendRecv;
    w.on_path = std::binary_search(path_calls.begin(), path_calls.end(), c);
    out->push_back(w);
  }
}

}  // namespace cpath
