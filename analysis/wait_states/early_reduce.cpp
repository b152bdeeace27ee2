// Early Reduce (Scalasca; all N-to-1 collectives: Reduce, Gather(v) and their I- forms): the
// root entered before the members it collects from and waited. As the PAG models it (rule 4)
// the root waits for the last member to enter, so the lost time runs to the latest member's
// entry (Scalasca measures to the first; the last is what the root's exit depends on).
#include "patterns.h"

namespace cpath {

bool early_reduce_rule(const Op& op, WaitPattern* out) {
  if (op.kind != OpKind::Collective || op.pattern != Pattern::AllToOne) return false;
  *out = WaitPattern::EarlyReduce;
  return true;
}

}  // namespace cpath
