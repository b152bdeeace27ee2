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

// Peak resident growth per recorded event through decoding, the replay and the walk
// (halo_bench: ~470 measured), and what each what-if scenario adds (~40 measured: new begin,
// end, bound edge and its begin per event, plus the pass's own tables).
constexpr uint64_t kAnalysisBytesPerEvent = 512;
constexpr uint64_t kWhatIfBytesPerScenarioEvent = 48;
// What does not grow with events: symbol tables for the path profile, the MPI library's own
// buffers for the exchanges (MPICH's ch4 ~1.3 MiB more than Open MPI's on halo_bench).
constexpr uint64_t kAnalysisFixedBytes = 2 << 20;

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

// Collective over comm: every rank gets the same plan. `events` is this rank's recorded count.
MemoryBudget plan_memory(uint64_t events, uint64_t option_bytes, MPI_Comm comm);

// One line for the report when the plan skipped the analysis ("" when it did not); `dir` is
// where the traces went ("" when there is no report directory).
std::string memory_budget_note(const MemoryBudget& b, const std::string& dir);

}  // namespace cpath
