// What the analysis could not model exactly (docs/pag-rules.md rule 9), by cause: each rank
// counts its share, the counts are summed over ranks, and every non-zero cause becomes one row
// of the report (stable key, count, sentence). Any row makes the report say "approximated".
#pragma once
#include <cstdint>
#include <vector>

#include "critical_path_walk.h"
#include "ops.h"
#include "partners.h"
#include "rank_trace.h"
#include "report.h"
#include "timeline.h"

namespace cpath {

enum class Cause : uint8_t {
  AnalysisDisabled,
  AnalysisSkippedMemory,
  StoppedAtMemoryCap,
  Paused,
  UnknownCommunicator,
  Intercommunicator,
  UnmatchedSend,
  UnmatchedReceive,
  CollectiveIncomplete,
  CollectiveCountMismatch,
  UnknownRequest,
  NeverCompleted,
  FreedWhileActive,
  RmaSynchronisation,
  WalkTruncated,
  ClockUnrepaired,
  SpillFailed,
  DependencyCycle,
  CollectiveStartOrder,
  ThreadChannelOrder,
  ThreadStart,
  kCount
};
constexpr size_t kNumCauses = static_cast<size_t>(Cause::kCount);

// This rank's counts, indexed by Cause. `clock_unrepaired` is the job-wide count of the clock
// repair (the same on every rank): rank 0 reports it.
std::vector<unsigned long long> approximation_counts(const RankTrace& trace, const Timeline& tl, const OpTable& ops,
                                                     const ReplayStats& st, const WalkResult& walk, bool analysis,
                                                     uint64_t clock_unrepaired);
// Rows for the report from the counts summed over ranks; sets r->exact.
void fill_approximations(const unsigned long long* summed, Report* r);

}  // namespace cpath
