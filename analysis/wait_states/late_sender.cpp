// Late Sender (Scalasca; seed 001's "late standard/buffered/synchronous/ready send" and
// "waiting on the receiver side" of the non-blocking modes): a receive (blocking, or the
// Wait/Test that completed an Irecv, or a probe) waited for the matching send to begin. For a
// rendezvous or synchronous non-blocking send the receive also waits for the sender's call that
// completes the send, and for a buffered send above the eager limit for the sender's next call
// (rule 3): that wait is a Late Sender too, the sender was late to progress the transfer.
// Lost time: partner begin - wait start, the PAG's own measure (docs/report.md).
#include "patterns.h"

namespace cpath {

bool late_sender_rule(const Op& op, WaitPattern* out) {
  if (op.kind != OpKind::Recv && op.kind != OpKind::Peek) return false;
  *out = WaitPattern::LateSender;
  return true;
}

}  // namespace cpath
