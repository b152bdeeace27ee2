// Early Scan (Scalasca; MPI_Scan, MPI_Exscan and their I- forms): a member waited for the last
// of the lower-ranked members (rule 4) to enter.
#include "patterns.h"

namespace cpath {

bool early_scan_rule(const Op& op, WaitPattern* out) {
  if (op.kind != OpKind::Collective || (op.pattern != Pattern::Scan && op.pattern != Pattern::Exscan)) return false;
  *out = WaitPattern::EarlyScan;
  return true;
}

}  // namespace cpath
