// The finalize-time results in one structure; report_text.cpp and report_json.cpp turn it
// into the printed tables and report.json. Writers never reach back into the trace.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cpath {

struct CallRow {
  std::string call;
  double time_s = 0;
  uint64_t count = 0;
};

struct SiteRow {
  std::string callsite;
  double time_s = 0;
  uint64_t count = 0;
};

struct ActivityRow {
  std::string kind;         // "compute", "mpi", "startup"
  int rank = -1;
  std::string description;  // "compute between MPI_Send at a.c:10 and MPI_Recv at a.c:12"
  std::string key;          // rank-independent activity
  double time_s = 0;
  uint64_t count = 0;
  double imbalance_s = 0;   // path time of `key` minus its mean time per rank, when positive
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
  // Analysis and trace.
  double postprocess_s = 0;
  uint64_t analysis_memory_max = 0;  // heap growth of the analysis, largest over ranks
  std::vector<std::pair<std::string, double>> phases;  // finalize steps, slowest rank each
  double clock_error_s = 0;
  bool exact = true;
  std::vector<std::string> approximations;
  uint64_t trace_bytes_max = 0;
  uint64_t trace_bytes_total = 0;
  uint64_t events_total = 0;
  std::string store_state = "ok";
  // PMU.
  bool pmu_enabled = false;
  std::string pmu_source = "none";
  std::string pmu_note;
  std::string pmu_events;
  uint64_t pmu_samples = 0, pmu_lost = 0;
  std::vector<HotspotRow> hot_all, hot_path, hot_path_compute, hot_path_mpi;
  uint32_t top = 10;
  std::string out_dir;  // where report.json, report.txt and the other files are ("" = not written)
};

std::string report_text(const Report& r);
std::string report_json(const Report& r);

}  // namespace cpath
