// How much memory the finalize-time analysis may take on each rank, decided before the trace
// is decoded, so that a long run is never killed for memory inside MPI_Finalize (docs/options.md,
// `analysis_mem=`). The analysis needs memory in proportion to the events it replays; the
// bytes per event below are measured peaks (bench/analysis_cost.py, analysis.phase_memory in
// report.json) with a margin. When the estimate does not fit, the analysis gives up parts in
// this order, every rank the same way, and the report says which and why:
//   1. the what-if scenarios run a few at a time (more passes, less memory), then not at all;
//   2. the whole replay is skipped: each rank's trace is written to DIR/trace.<rank>.cpt for
//      `cpath-ref DIR` on a machine with more memory.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

namespace cpath {

// Peak resident growth per recorded event, measured (bench/analysis_cost.py and
// analysis.phase_memory_bytes, default options, 2026-12-07; per event from two sizes of each
// program, so that the fixed part drops out) and given a margin of about 1.7:
// - the replay and walk: halo_bench 135-145, lu_wavefront ~190, cp_random_app ~130 bytes;
// - the what-if, which frees the replay's operations before it allocates its tables: a base
//   (timeline, factors, waiting rows; up to ~155 measured) plus per scenario, measured with 20
//   more scenarios since their bound vertices are packed (2026-12-07, third), 4.5 (halo_bench),
//   6.7 (lu_wavefront), 9.5 (cp_random_app): a new begin per waiting event, the kept begins and
//   the new paths' walks (16 where every event waits; 24 before the packing, and at worst
//   still, when a rank holds many rows open because its partners' values arrive early).
//   The per-scenario figure below is a typical cost with a margin, not that worst case.
// Too high an estimate refuses runs that fit (512 bytes, three times the peak, did), too low
// lets the analysis outgrow analysis_mem=.
constexpr uint64_t kAnalysisBytesPerEvent = 320;
constexpr uint64_t kWhatIfBaseBytesPerEvent = 240;
constexpr uint64_t kWhatIfBytesPerScenarioEvent = 16;
// What does not grow with events (measured at 5k events per rank on halo_bench, 4 ranks): the
// replay's and the MPI library's buffers for its exchanges, symbol tables (2.8 MiB with
// sample=0,timeline=0; MPICH's ch4 ~1.3 MiB more than Open MPI's); the timeline files' writer
// (+6 MiB); the sampler's samples and their symbolisation (+0.5-3 MiB). Below these a small
// run peaked at up to twice what the plan allowed.
constexpr uint64_t kAnalysisFixedBytes = 4 << 20;
constexpr uint64_t kTimelineFixedBytes = 8 << 20;
constexpr uint64_t kSamplingFixedBytes = 4 << 20;
inline uint64_t analysis_fixed_bytes(bool timeline, bool sampling) {
  return kAnalysisFixedBytes + (timeline ? kTimelineFixedBytes : 0) + (sampling ? kSamplingFixedBytes : 0);
}

// The finalize step (PhaseTimes mark) that makes the plan: the limit bounds growth after it.
constexpr const char* kMemoryPlanPhase = "memory plan";

struct MemoryBudget {
  uint64_t limit = 0;          // bytes per rank, smallest over ranks
  std::string limit_source;    // "analysis_mem=2G" or how auto was derived (the smallest rank's)
  uint64_t events_max = 0;     // most events recorded on one rank
  uint64_t need_max = 0;       // estimated need of the replay and walk on that rank
  bool analyse = true;         // false: the replay does not fit anywhere it must run
  // What-if scenarios that fit in one pass on every rank (0: none; UINT32_MAX: no limit).
  uint32_t whatif_group = UINT32_MAX;
};

// Memory this rank may use: analysis_mem= when given (option_bytes > 0), else half of what
// the system can still give it, shared with the other ranks of its host: MemAvailable and
// the cgroup's headroom (memory.max - memory.current), whichever is smaller, over the ranks
// that share the host. `source` says which.
uint64_t memory_available_to_rank(uint64_t option_bytes, int local_ranks, std::string* source);

// Collective over comm: every rank gets the same plan. `events` is this rank's recorded count,
// `fixed` what the analysis needs whatever the count (analysis_fixed_bytes).
MemoryBudget plan_memory(uint64_t events, uint64_t option_bytes, uint64_t fixed, MPI_Comm comm);

// One line for the report when the plan skipped the analysis ("" when it did not); `dir` is
// where the traces went ("" when there is no report directory).
std::string memory_budget_note(const MemoryBudget& b, const std::string& dir);

}  // namespace cpath
