#include "pop_ideal.h"

#include <algorithm>

namespace cpath {

void apply_retimed_ideal(const WhatIfReport& w, EfficiencyRow* e) {
  if (!e->known || !w.present || w.rows.empty()) return;
  const WhatIfRow* net = nullptr;
  for (const WhatIfRow& r : w.rows)
    if (r.kind == "network" && r.target.empty() && r.factor == 0) net = &r;
  if (!net) return;
  // The POP window (first MPI_Init exit to last MPI_Finalize entry, less libcpath's start-up)
  // is not the re-timing's (first MPI_Init entry on), but the scenario touches neither
  // MPI_Init nor start-up, so what it saves is saved inside the window: ideal = window - gain,
  // the gain measured against the identity re-timing (rows[0]) so the model's own error
  // cancels. No ideal run is shorter than the busiest rank's compute: clock noise only.
  const double gain = w.rows[0].run_time_s - net->run_time_s;
  const double um = std::min(e->useful_max_s, e->elapsed_s);
  e->ideal_s = std::max(um, std::min(e->elapsed_s, e->elapsed_s - gain));
  e->ideal_source =
      "re-timed on the PAG with every call's own MPI time zero (what-if scenario 'all MPI time zero'; waiting for "
      "partners remains)";
  e->serialisation = e->ideal_s > 0 ? um / e->ideal_s : 0;
  e->transfer = e->elapsed_s > 0 ? e->ideal_s / e->elapsed_s : 0;
}

}  // namespace cpath
