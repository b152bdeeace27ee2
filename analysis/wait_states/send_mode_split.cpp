// Seed 001's point-to-point patterns by send mode (3.2.1, 3.2.3): its "late standard /
// synchronous / buffered / ready send" and "waiting on the receiver side" of each non-blocking
// mode are the Late Sender family (with Wrong Order and Misarrangement) split by the matched
// send's call; its "early ... send" and "waiting on the sender side" are Late Receiver split by
// the waiting send's own call. Splitting existing instances, never finding new ones, keeps the
// breakdown of a row summing to that row. The call is the recorded one (MPI_Ssend, MPI_Isend,
// MPI_Bsend_init...), so the mode is what the program wrote, not a guess from timings.
#include "wait_states.h"

namespace cpath {

namespace {

bool receive_side(WaitPattern p) {
  return p == WaitPattern::LateSender || p == WaitPattern::LateSenderWrongOrder || p == WaitPattern::MisarrangementSend ||
         p == WaitPattern::MisarrangementBsend;
}

}  // namespace

void attach_send_calls(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, std::vector<WaitInstance>* inst) {
  for (WaitInstance& w : *inst) {
    const bool recv = receive_side(w.pattern);
    if (!recv && w.pattern != WaitPattern::LateReceiver) continue;
    // Of the ops the call completed, those that waited for this partner; two of them (a
    // Waitall over two receives from one MPI_Startall) name the lowest call id, as cpath-ref.
    uint16_t best = 0;
    const auto fits = [recv](OpKind k) {
      return recv ? k == OpKind::Recv || k == OpKind::Peek : k == OpKind::Send || k == OpKind::Flush;
    };
    for_each_op_waited(ops, partners, w, fits, [&](uint32_t o) {
      const uint32_t args = ops.ops[o].args;
      const uint16_t c = recv ? (o < partners.matched_send.size() ? partners.matched_send[o].call : 0)
                              : (args < tl.ev.size() ? tl.ev[args].e.call : 0);
      if (c && (!best || c < best)) best = c;
      return false;
    });
    w.send_call = best;
  }
}

}  // namespace cpath
