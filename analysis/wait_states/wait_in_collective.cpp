// Wait in Collective (no Scalasca name): a member of a rooted, scan or neighbourhood collective waited for a
// member its pattern does not make it wait for. The pattern (rule 4) says who must come before
// anyone can leave; the MPI's algorithm can synchronise more: a root sending above the eager
// limit waits for its receivers to enter, a member of a reduction waits for a root that posts
// its receive late, a tree's inner member for its children, a recursive-doubling scan's lower
// ranks for higher ones, a neighbourhood member's large sends for its out-neighbours. The replay finds these members by timing (replay/collective_replay.cpp:
// a member entered after the member and its pattern's partner and before it left); they wait
// for the latest member that entered before they left.
#include "patterns.h"

namespace cpath {

bool wait_in_collective_rule(const Op& op, bool beyond_pattern, WaitPattern* out) {
  if (op.kind != OpKind::Collective || !beyond_pattern) return false;
  *out = WaitPattern::WaitInCollective;
  return true;
}

}  // namespace cpath
