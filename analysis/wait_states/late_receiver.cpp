// Late Receiver (Scalasca; seed 001's "early standard/synchronous send" and "waiting on the
// sender side"): a send that waits for its receiver (synchronous mode, or standard mode above
// the eager limit: rendezvous, rule 3), or an eager standard send above the inline limit that
// the MPI may hold until the receiver takes it (Open MPI's ob1 above 256 bytes), waited for
// the matching receive to be posted, or for the receiver to reach the call completing a
// non-blocking receive (its progress). Inline eager standard, buffered and ready sends never
// wait (the PAG gives them no partner), so they never show up here: that is the difference
// the protocol makes. A buffered send above the eager limit waits in the MPI_Buffer_detach after
// it instead (its flush op): the detach waited for the late receiver.
#include "patterns.h"

namespace cpath {

bool late_receiver_rule(const Op& op, WaitPattern* out) {
  if (op.kind != OpKind::Send && op.kind != OpKind::Flush) return false;
  *out = WaitPattern::LateReceiver;
  return true;
}

}  // namespace cpath
