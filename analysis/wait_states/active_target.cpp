// Late Post and Early Wait (Scalasca's names for general active-target synchronisation): the
// messages of docs/pag-rules.md rule 10. An origin's MPI_Win_start waited for a target's
// MPI_Win_post (Late Post), or a target's MPI_Win_wait or successful MPI_Win_test waited for an
// origin's MPI_Win_complete (Early Wait: the target waited early), or an origin's
// MPI_Win_complete waited for the target's MPI_Win_wait (Wait for Progress: MPICH 4.0 moves the
// epoch's data only in the target's MPI calls). Lost time as for Late Sender: partner begin -
// wait start (an MPI_Win_test loop's first poll, rule 5).
#include "patterns.h"

namespace cpath {

bool active_target_rule(const Op& op, WaitPattern* out) {
  if (!is_pscw_tag(op.tag)) return false;
  if (op.kind == OpKind::Send) {
    // Only the complete's message waits (held for the target's progress); a post never does.
    if (!pscw_tag_is_complete(op.tag)) return false;
    *out = WaitPattern::WaitForProgress;
    return true;
  }
  if (op.kind != OpKind::Recv) return false;
  *out = pscw_tag_is_complete(op.tag) ? WaitPattern::EarlyWait : WaitPattern::LatePost;
  return true;
}

}  // namespace cpath
