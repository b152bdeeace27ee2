// The report's clock section: how clocks were aligned and what the clock-condition repair
// found (docs/report.md, analysis.clock).
#pragma once
#include <cstdint>
#include <string>

namespace cpath {

struct ClockReport {
  int hosts = 1;              // clock domains (hosts, or simulated hosts in tests)
  bool simulated = false;     // hosts simulated by a test option (sim_hosts, skew injection)
  std::string alignment;      // "none" (one clock), "leaders" (hosts aligned), "disabled" (align=0)
  double error_s = 0;         // bound on the alignment error (same as analysis.clock_error_s)
  double startup_s = 0;       // time of the MPI_Init measurement, slowest rank
  double finalize_s = 0;      // host discovery and alignment at MPI_Finalize, slowest rank
  int64_t lmin_ns = 1;        // minimal latency of the clock condition
  uint64_t violations = 0, repaired = 0, unrepaired = 0, shifted = 0;
  double max_shift_s = 0;
  int rounds = 0;
  // Collective calls that ended before a member they are modelled to wait for began, beyond the
  // clocks' error: MPI did not synchronise them (split collective I/O, ...), so they wait only
  // for those that came before (rule 4), instead of a "repair" that would shift the clock.
  uint64_t unsynchronised = 0;
  // Rooted and scan collective calls that waited for a member their pattern does not wait for
  // (rule 4: the MPI's algorithm synchronised them): they wait for the latest member that
  // entered before they ended.
  uint64_t beyond_pattern = 0;
};

}  // namespace cpath
