// The "Wait states" section of the report (analysis/wait_states/, docs/report.md): patterns,
// root causes and the POP efficiency factors, as the writers see them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cpath {

struct WaitWorst {
  std::string call, site;                  // the waiting call ("MPI_Recv") and its call site
  std::string partner_call, partner_site;  // the call it waited for
  int waiting_rank = -1, partner_rank = -1;
  double lost_s = 0;
  bool on_path = false;
  // Completed by a later call than the posting one (MPI_Wait, MPI_Waitall, ...): how much later
  // that call could come without waiting (seed 001's "optimal distance"); -1 otherwise.
  double optimal_distance_s = -1;
};

struct WaitStateRow {
  std::string pattern, hint;
  double lost_s = 0;     // summed over ranks
  double share = 0;      // of elapsed x ranks
  double on_path_s = 0;  // instances whose waiting call's end the critical path passes
  uint64_t instances = 0;
  bool listed = false;   // share at or above WaitStatesSection::threshold_share
  std::vector<WaitWorst> worst;
};

struct RootCauseRow {
  std::string description;  // "compute between MPI_Wait at a.c:7 and MPI_Send at a.c:9 on rank 1"
  int rank = -1;
  double delay_s = 0;           // length of those compute intervals (the ones that made others wait)
  double waiting_caused_s = 0;  // the waiting they caused, all ranks
  int ranks_waiting = 0;
  uint64_t instances = 0;
  bool long_term = false;       // propagated: the rank was itself held up inside its previous call
};

struct EfficiencyRow {
  bool known = false;
  double parallel = 0, load_balance = 0, communication = 0, serialisation = 0, transfer = 0;
  double useful_max_s = 0, useful_mean_s = 0, ideal_s = 0, elapsed_s = 0;
  std::string ideal_source;  // how the run with zero-cost transfers was timed
};

// One row of the breakdown of the point-to-point patterns by the send's call (seed 001's
// early/late standard, synchronous, buffered, ready sends and the non-blocking modes).
struct WaitModeRow {
  std::string pattern, send_mode;  // "Late Sender", "MPI_Ssend"
  double lost_s = 0;
  uint64_t instances = 0;
};

struct WaitStatesSection {
  bool computed = false;
  double threshold_share = 0.005;
  std::vector<WaitStateRow> patterns;  // by lost time
  std::vector<RootCauseRow> root_causes;
  std::vector<WaitModeRow> by_send_mode;  // by pattern, then lost time
  EfficiencyRow efficiency;
};

}  // namespace cpath
