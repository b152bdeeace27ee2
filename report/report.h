// The finalize-time results in one structure; report_text.cpp and report_json.cpp turn it
// into the printed tables and report.json. Writers never reach back into the trace.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clock_report.h"
#include "communication_report.h"
#include "wait_states_report.h"
#include "region_rows.h"
#include "what_if_report.h"

namespace cpath {

struct CallRow {
  std::string call;
  double time_s = 0;
  uint64_t count = 0;
};

struct FrameRow {
  std::string function, file;
  uint32_t line = 0;
};

struct SiteRow {
  std::string callsite;
  double time_s = 0;
  uint64_t count = 0;
  std::vector<FrameRow> call_path;  // with stack > 1: the frames, innermost first
};

struct ActivityRow {
  std::string kind;         // "compute", "mpi", "startup"
  int rank = -1;
  std::string description;  // "compute between MPI_Send at a.c:10 and MPI_Recv at a.c:12"
  std::string key;          // rank-independent activity
  double time_s = 0;
  uint64_t count = 0;
  // This row's share of the activity's imbalance (in proportion to its path time), so the rows
  // of one activity on several ranks add up to the activity's imbalance instead of repeating it.
  double imbalance_s = 0;
  double activity_imbalance_s = 0;  // path time of `key` minus its mean time per rank, when positive
};

struct ImbalanceRow {
  std::string activity;
  double path_s = 0;
  double mean_s = 0;
  double imbalance_s = 0;
};

struct HotspotRow {
  std::string function;
  std::string module;
  double cpu_s = 0;
  std::optional<double> instructions;
  std::optional<double> cpi;
};

// Something the analysis could not model exactly (docs/pag-rules.md rule 9): a stable key for
// tools, how many operations or ranks it concerns, and what it means for the path.
struct ApproximationRow {
  std::string cause;  // e.g. "unknown_communicator" (docs/report.md lists them)
  uint64_t count = 0;
  std::string text;   // one sentence, without the count
};

// Where the path's time goes over the run: compute, MPI and start-up per time bin.
struct PathOverTime {
  double bin_s = 0;
  std::vector<double> compute_s, mpi_s, startup_s;
};

// What was written into timeline.json (report/timeline.h), as the report tells it.
struct TimelineSummary {
  bool written = false;
  std::string file;           // "timeline.json"
  uint64_t bytes = 0;
  uint64_t cap_bytes = 0;     // option timeline_max
  bool capped = false;        // the cap was reached: only a window of the run is kept
  double window_begin_s = 0;  // kept window, seconds from the first MPI_Init entry
  double window_end_s = 0;
  uint64_t slices_total = 0, slices_kept = 0;
  double write_s = 0;         // time to write it, slowest rank
  std::string note;           // one sentence when something was left out or could not be written
};

// Below this share of a CPU between samples (Report::pmu_cpu_share) the CPU-time timer's
// function times are reported as approximate: 2 busy ranks per CPU have 0.5, a rank alone on
// its CPU about 1.
constexpr double kPmuCpuShareExact = 0.8;

struct Report {
  std::string app;
  int ranks = 0;
  std::string date;
  double elapsed_s = 0;
  // Critical path.
  double cp_length_s = 0, cp_compute_s = 0, cp_mpi_s = 0, cp_startup_s = 0;
  double cp_span_s = 0;  // first vertex to the latest MPI_Finalize entry
  std::vector<double> per_rank_s;
  uint64_t handoffs = 0;
  int start_rank = -1;
  std::vector<CallRow> by_call;
  std::vector<SiteRow> by_site;
  std::vector<ActivityRow> activities;
  std::vector<ImbalanceRow> imbalance;
  RegionSection regions;  // critical path by user region and phase
  // Analysis and trace.
  double postprocess_s = 0;
  uint64_t analysis_memory_max = 0;  // resident growth of the analysis at its peak, largest over ranks
  uint64_t analysis_heap_max = 0;    // its glibc heap in use at the peak, largest over ranks (pages the process had too)
  std::vector<std::pair<std::string, double>> phases;  // finalize steps, slowest rank each
  std::vector<std::pair<std::string, double>> phase_cpu;        // process CPU seconds per step, largest rank
  std::vector<std::pair<std::string, uint64_t>> phase_memory;  // resident growth by each step's end (peak), largest rank
  double clock_error_s = 0;
  ClockReport clock;
  bool exact = true;
  std::vector<ApproximationRow> approximations;
  // Eager limit the send-mode rule used (docs/pag-rules.md rule 3) and where it came from.
  uint64_t eager_limit_intra = 0, eager_limit_inter = 0;
  // Standard sends above these and up to the eager limits may be held for the receiver.
  uint64_t eager_inline_intra = 0, eager_inline_inter = 0;
  std::string eager_limit_source;
  // Threads that called MPI, per rank (empty when every rank used one thread).
  std::vector<int> threads_per_rank;
  uint64_t trace_bytes_max = 0;
  uint64_t trace_bytes_total = 0;
  uint64_t events_total = 0;
  uint64_t polls_merged = 0;  // unsuccessful polls merged into the records they repeat (trace-format.md)
  std::string store_state = "ok";
  // PMU.
  bool pmu_enabled = false;
  std::string pmu_source = "none";
  std::string pmu_note;
  std::string pmu_events;
  uint64_t pmu_samples = 0, pmu_lost = 0;
  uint32_t pmu_freq_hz = 0;   // nominal samples per second of CPU time per thread (0: period mode)
  uint64_t pmu_period = 0;    // or the fixed period (events of the sampling event)
  double pmu_effective_hz = 0;  // CPU-time timer: the rate the kernel's tick allowed (0: perf events)
  // CPU-time timer: the share of a CPU the sampled threads ran on between their samples, the
  // job's CPU-weighted mean and the least of any rank (pmu/timer_sampler.h, cpu_share); -1
  // for perf events. Below kPmuCpuShareExact the samples land where slices end, not where the
  // CPU time went, and the report says the function times are approximate.
  double pmu_cpu_share = -1, pmu_cpu_share_min = -1;
  bool pmu_functions_approximate() const { return pmu_cpu_share >= 0 && pmu_cpu_share < kPmuCpuShareExact; }
  // CPU-time timer: threads the samples missed (pmu/timer_sampler.h, unsampled), on how many
  // ranks, how many of them block SIGPROF, the CPU time of theirs no sample stands for, and the
  // threads that missed most.
  uint32_t pmu_unsampled_threads = 0, pmu_unsampled_ranks = 0, pmu_unsampled_blocked = 0;
  double pmu_unsampled_cpu_s = 0;
  struct UnsampledThread {
    int rank = 0;
    uint32_t tid = 0;
    double cpu_s = 0, sampled_s = 0;
    int sigprof_blocked = -1;  // 1, 0, -1 unknown
  };
  std::vector<UnsampledThread> pmu_unsampled_list;
  bool oversubscribed = false;
  std::string oversubscription;  // one line when some host runs more ranks than it has CPUs
  // The memory plan of the finalize analysis (src/memory_budget.h): what a rank may use, the
  // estimate it was held against, and what was given up.
  struct MemoryPlan {
    uint64_t limit_bytes = 0;  // UINT64_MAX: no limit known
    std::string source;
    uint64_t events_max = 0, need_bytes = 0;
    bool analysed = true;
    uint32_t whatif_group = UINT32_MAX;  // scenarios per what-if pass (UINT32_MAX: all at once)
    uint64_t used_bytes = 0;  // peak resident growth after the plan was made, largest rank
  } memory;
  std::string memory_note;  // one line when the analysis was skipped for memory
  std::vector<HotspotRow> hot_all, hot_path, hot_path_compute, hot_path_mpi;
  std::vector<HotspotRow> hot_incl_all, hot_incl_path;  // callchain=1: inclusive (function + callees)
  uint32_t top = 10;
  std::string out_dir;  // where report.json, report.txt and the other files are ("" = not written)
  // Who talks to whom, start-up, placement (communication_report.h).
  CommunicationReport communication;
  StartupReport startup;
  PlacementReport placement;
  WhatIfReport what_if;  // what_if_report.h
  PathOverTime path_over_time;
  TimelineSummary timeline;
  WaitStatesSection waits;  // wait states, root causes, POP efficiency (wait_states_report.h)
};

std::string report_text(const Report& r);
std::string report_json(const Report& r);
// The communication, start-up and placement sections: text block, JSON members (each
// preceded by ",\n"), and the files beside report.json (names of files not written go to
// `failed`).
std::string communication_text(const Report& r);
std::string communication_json(const Report& r);
void write_communication_files(const Report& r, const std::string& dir, std::vector<std::string>* failed);
// report.html: report.json's text (as written) inlined into the page template
// (report/report_template.html); `timeline_json` (or "null") overrides its "timeline" key.
// The wait-state sections: text block and JSON members (preceded by ",\n"; "" when not computed).
std::string wait_states_text(const Report& r);
std::string wait_states_json(const Report& r);
std::string report_html(const std::string& report_json_text, const std::string& timeline_json = "null");
std::string timeline_summary_json(const TimelineSummary& t);

}  // namespace cpath
