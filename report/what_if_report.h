// The what-if section (docs/what-if.md): the run re-timed on the Program Activity Graph with
// some activities faster. Filled by analysis/what_if.cpp, written by report/what_if_writers.cpp.
#pragma once
#include <string>
#include <vector>

namespace cpath {

// One of the top activities of a scenario's new critical path (named as the report's path
// activity rows).
struct WhatIfPathRow {
  std::string activity;
  int rank = -1;
  double time_s = 0;
};

struct WhatIfRow {
  std::string scenario;  // the text shown
  std::string kind;      // identity, activity, function, balance, network, startup, rank, user
  std::string target;    // the activity, function, rank ("" for the whole run)
  double factor = 1;     // duration multiplier (0.5: 2x faster); balance: the slowest rank's
  double run_time_s = 0;
  double gain_s = 0;     // re-timed as measured minus this scenario's run time (> 0: shorter)
  int end_rank = -1;     // whose MPI_Finalize ends the re-timed run
  std::vector<WhatIfPathRow> path_top;  // the new critical path's top activities (empty: not walked)
  long long path_rank_changes = -1;     // how often the new path changes rank (-1: not walked)
  // The option that runs this scenario again (whatif=..., names with spaces quoted); "" where
  // no single option item does (the identity, the balance).
  std::string option;
};

struct WhatIfReport {
  bool present = false;
  double measured_s = 0;  // the run as measured (first MPI_Init entry to last MPI_Finalize entry)
  std::vector<WhatIfRow> rows;  // rows[0]: identity (every factor 1), the model's own check
  std::string note;             // why there is no section, or what was left out
  double seconds = 0;           // cost of the re-timing (slowest rank)
  double forward_s = 0, paths_s = 0;  // of which the forward passes and the new paths' walks
  bool stalled = false;         // the re-timing gave up on a dependency cycle (an approximation)
};

std::string what_if_text(const WhatIfReport& w);
std::string what_if_json(const WhatIfReport& w);  // ",\n  \"what_if\": [...]" or ""

}  // namespace cpath
