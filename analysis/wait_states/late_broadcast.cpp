// Late Broadcast (Scalasca; all 1-to-N collectives: Bcast, Scatter(v) and their I- forms): a
// non-root member waited for the root to enter. The root itself never waits (rule 4).
#include "patterns.h"

namespace cpath {

bool late_broadcast_rule(const Op& op, WaitPattern* out) {
  if (op.kind != OpKind::Collective || op.pattern != Pattern::OneToAll) return false;
  *out = WaitPattern::LateBroadcast;
  return true;
}

}  // namespace cpath
