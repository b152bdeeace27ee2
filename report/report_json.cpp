#include <cmath>
#include <cstdio>
#include <sstream>

#include "json_format.h"
#include "report.h"

namespace cpath {

namespace {

using json::num;
using json::q;

std::string opt(const std::optional<double>& d) { return d ? num(*d) : "null"; }

void hot(std::ostringstream& o, const char* name, const std::vector<HotspotRow>& rows, bool last) {
  o << "    " << q(name) << ": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const HotspotRow& h = rows[i];
    o << (i ? ",\n      " : "\n      ") << "{\"function\": " << q(h.function) << ", \"module\": " << q(h.module)
      << ", \"cpu_s\": " << num(h.cpu_s) << ", \"instructions\": " << opt(h.instructions) << ", \"cpi\": " << opt(h.cpi)
      << "}";
  }
  o << (rows.empty() ? "]" : "\n    ]") << (last ? "\n" : ",\n");
}

std::string arr(const std::vector<double>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + num(v[i]);
  return o + "]";
}

// Absent with stack=1, so that reports without call paths stay as they were.
std::string call_path_json(const std::vector<FrameRow>& path) {
  if (path.empty()) return "";
  std::string o = ", \"call_path\": [";
  for (size_t i = 0; i < path.size(); ++i)
    o += std::string(i ? ", " : "") + "{\"function\": " + q(path[i].function) + ", \"file\": " + q(path[i].file) +
         ", \"line\": " + std::to_string(path[i].line) + "}";
  return o + "]";
}

}  // namespace

std::string timeline_summary_json(const TimelineSummary& t) {
  std::ostringstream o;
  o << "{\"written\": " << (t.written ? "true" : "false") << ", \"file\": " << q(t.file) << ", \"bytes\": " << t.bytes
    << ", \"cap_bytes\": " << t.cap_bytes << ", \"capped\": " << (t.capped ? "true" : "false")
    << ", \"window_s\": [" << num(t.window_begin_s) << ", " << num(t.window_end_s) << "], \"slices_total\": " << t.slices_total
    << ", \"slices_kept\": " << t.slices_kept << ", \"write_s\": " << num(t.write_s) << ", \"note\": " << q(t.note) << "}";
  return o.str();
}

std::string report_json(const Report& r) {
  std::ostringstream o;
  o << "{\n";
  o << "  \"tool\": \"libcpath\",\n";
  o << "  \"app\": " << q(r.app) << ",\n";
  o << "  \"date\": " << q(r.date) << ",\n";
  o << "  \"ranks\": " << r.ranks << ",\n";
  o << "  \"out_dir\": " << q(r.out_dir) << ",\n";
  o << "  \"elapsed_s\": " << num(r.elapsed_s) << ",\n";
  o << "  \"critical_path\": {\n";
  o << "    \"length_s\": " << num(r.cp_length_s) << ",\n";
  o << "    \"span_s\": " << num(r.cp_span_s) << ",\n";
  o << "    \"compute_s\": " << num(r.cp_compute_s) << ",\n";
  o << "    \"mpi_s\": " << num(r.cp_mpi_s) << ",\n";
  o << "    \"startup_s\": " << num(r.cp_startup_s) << ",\n";
  o << "    \"start_rank\": " << r.start_rank << ",\n";
  o << "    \"handoffs\": " << r.handoffs << ",\n";
  o << "    \"per_rank_s\": [";
  for (size_t i = 0; i < r.per_rank_s.size(); ++i) o << (i ? ", " : "") << num(r.per_rank_s[i]);
  o << "],\n    \"by_mpi_call\": [";
  for (size_t i = 0; i < r.by_call.size(); ++i)
    o << (i ? ",\n      " : "\n      ") << "{\"call\": " << q(r.by_call[i].call) << ", \"time_s\": " << num(r.by_call[i].time_s)
      << ", \"count\": " << r.by_call[i].count << "}";
  o << (r.by_call.empty() ? "]" : "\n    ]") << ",\n    \"by_callsite\": [";
  for (size_t i = 0; i < r.by_site.size(); ++i)
    o << (i ? ",\n      " : "\n      ") << "{\"callsite\": " << q(r.by_site[i].callsite)
      << ", \"time_s\": " << num(r.by_site[i].time_s) << ", \"count\": " << r.by_site[i].count
      << call_path_json(r.by_site[i].call_path) << "}";
  o << (r.by_site.empty() ? "]" : "\n    ]") << ",\n    \"activities\": [";
  for (size_t i = 0; i < r.activities.size(); ++i) {
    const ActivityRow& a = r.activities[i];
    o << (i ? ",\n      " : "\n      ") << "{\"kind\": " << q(a.kind) << ", \"rank\": " << a.rank
      << ", \"description\": " << q(a.description) << ", \"activity\": " << q(a.key) << ", \"time_s\": " << num(a.time_s)
      << ", \"count\": " << a.count << ", \"imbalance_s\": " << num(a.imbalance_s)
      << ", \"activity_imbalance_s\": " << num(a.activity_imbalance_s) << "}";
  }
  o << (r.activities.empty() ? "]" : "\n    ]") << ",\n    \"imbalance\": [";
  for (size_t i = 0; i < r.imbalance.size(); ++i) {
    const ImbalanceRow& a = r.imbalance[i];
    o << (i ? ",\n      " : "\n      ") << "{\"activity\": " << q(a.activity) << ", \"path_s\": " << num(a.path_s)
      << ", \"mean_s\": " << num(a.mean_s) << ", \"imbalance_s\": " << num(a.imbalance_s) << "}";
  }
  o << (r.imbalance.empty() ? "]" : "\n    ]");
  append_region_json(o, r);
  if (!r.path_over_time.compute_s.empty())
    o << ",\n    \"over_time\": {\"bin_s\": " << num(r.path_over_time.bin_s) << ", \"compute_s\": "
      << arr(r.path_over_time.compute_s) << ", \"mpi_s\": " << arr(r.path_over_time.mpi_s)
      << ", \"startup_s\": " << arr(r.path_over_time.startup_s) << "}";
  o << "\n  },\n";
  o << "  \"analysis\": {\n";
  o << "    \"postprocess_s\": " << num(r.postprocess_s) << ",\n";
  o << "    \"postprocess_share\": " << num(r.elapsed_s > 0 ? r.postprocess_s / r.elapsed_s : 0) << ",\n";
  o << "    \"clock_error_s\": " << num(r.clock_error_s) << ",\n";
  const ClockReport& c = r.clock;
  o << "    \"clock\": {\"hosts\": " << c.hosts << ", \"leaders\": " << c.hosts
    << ", \"simulated_hosts\": " << (c.simulated ? "true" : "false") << ", \"alignment\": " << q(c.alignment)
    << ", \"error_bound_s\": " << num(c.error_s) << ", \"startup_s\": " << num(c.startup_s) << ", \"finalize_s\": " << num(c.finalize_s)
    << ", \"lmin_s\": " << num(static_cast<double>(c.lmin_ns) * 1e-9) << ", \"violations\": " << c.violations
    << ", \"repaired\": " << c.repaired << ", \"unrepaired\": " << c.unrepaired << ", \"calls_shifted\": " << c.shifted
    << ", \"max_shift_s\": " << num(c.max_shift_s) << ", \"rounds\": " << c.rounds
    << ", \"unsynchronised_collective_calls\": " << c.unsynchronised
    << ", \"collective_calls_beyond_pattern\": " << c.beyond_pattern << "},\n";
  o << "    \"memory_per_rank_max_bytes\": " << r.analysis_memory_max << ",\n";
  o << "    \"heap_per_rank_max_bytes\": " << r.analysis_heap_max << ",\n";
  {
    const Report::MemoryPlan& m = r.memory;
    o << "    \"memory_budget\": {\"limit_bytes\": " << (m.limit_bytes == UINT64_MAX ? std::string("null") : std::to_string(m.limit_bytes))
      << ", \"source\": " << q(m.source) << ", \"events_max\": " << m.events_max << ", \"need_bytes\": " << m.need_bytes
      << ", \"used_bytes\": " << m.used_bytes
      << ", \"analysed\": " << (m.analysed ? "true" : "false") << ", \"whatif_scenarios_per_pass\": "
      << (m.whatif_group == UINT32_MAX ? std::string("null") : std::to_string(m.whatif_group)) << ", \"note\": " << q(r.memory_note)
      << "},\n";
  }
  o << "    \"phases\": {";
  for (size_t i = 0; i < r.phases.size(); ++i) o << (i ? ", " : "") << q(r.phases[i].first) << ": " << num(r.phases[i].second);
  o << "},\n";
  o << "    \"phase_cpu_s\": {";
  for (size_t i = 0; i < r.phase_cpu.size(); ++i) o << (i ? ", " : "") << q(r.phase_cpu[i].first) << ": " << num(r.phase_cpu[i].second);
  o << "},\n";
  o << "    \"phase_memory_bytes\": {";
  for (size_t i = 0; i < r.phase_memory.size(); ++i)
    o << (i ? ", " : "") << q(r.phase_memory[i].first) << ": " << r.phase_memory[i].second;
  o << "},\n";
  o << "    \"exact\": " << (r.exact ? "true" : "false") << ",\n";
  o << "    \"approximations\": [";
  for (size_t i = 0; i < r.approximations.size(); ++i) {
    const ApproximationRow& a = r.approximations[i];
    o << (i ? ",\n      " : "\n      ") << "{\"cause\": " << q(a.cause) << ", \"count\": " << a.count
      << ", \"text\": " << q(a.text) << "}";
  }
  o << (r.approximations.empty() ? "]" : "\n    ]") << ",\n";
  o << "    \"eager_limit\": {\"intra\": " << r.eager_limit_intra << ", \"inter\": " << r.eager_limit_inter
    << ", \"inline_intra\": " << r.eager_inline_intra << ", \"inline_inter\": " << r.eager_inline_inter
    << ", \"source\": " << q(r.eager_limit_source) << "},\n";
  o << "    \"threads_per_rank\": [";
  for (size_t i = 0; i < r.threads_per_rank.size(); ++i) o << (i ? ", " : "") << r.threads_per_rank[i];
  o << "]\n  },\n";
  o << "  \"trace\": {\n";
  o << "    \"bytes_per_rank_max\": " << r.trace_bytes_max << ",\n";
  o << "    \"bytes_total\": " << r.trace_bytes_total << ",\n";
  o << "    \"events_total\": " << r.events_total << ",\n";
  o << "    \"polls_merged\": " << r.polls_merged << ",\n";
  o << "    \"bytes_per_event\": " << num(r.events_total ? double(r.trace_bytes_total) / double(r.events_total) : 0) << ",\n";
  o << "    \"store\": " << q(r.store_state) << "\n  },\n";
  o << "  \"pmu\": {\n";
  o << "    \"enabled\": " << (r.pmu_enabled ? "true" : "false") << ",\n";
  o << "    \"event_source\": " << q(r.pmu_source) << ",\n";
  o << "    \"events\": " << q(r.pmu_events) << ",\n";
  o << "    \"note\": " << q(r.pmu_note) << ",\n";
  o << "    \"samples\": " << r.pmu_samples << ",\n";
  o << "    \"lost\": " << r.pmu_lost << ",\n";
  o << "    \"freq_hz\": " << r.pmu_freq_hz << ",\n";
  o << "    \"period\": " << r.pmu_period << ",\n";
  o << "    \"effective_hz\": " << num(r.pmu_effective_hz) << ",\n";
  o << "    \"cpu_share\": " << num(r.pmu_cpu_share) << ",\n";
  o << "    \"cpu_share_min\": " << num(r.pmu_cpu_share_min) << ",\n";
  o << "    \"unsampled\": {\"threads\": " << r.pmu_unsampled_threads << ", \"ranks\": " << r.pmu_unsampled_ranks
    << ", \"sigprof_blocked\": " << r.pmu_unsampled_blocked << ", \"cpu_s\": " << num(r.pmu_unsampled_cpu_s)
    << ", \"worst\": [";
  for (size_t i = 0; i < r.pmu_unsampled_list.size(); ++i) {
    const Report::UnsampledThread& t = r.pmu_unsampled_list[i];
    o << (i ? ", " : "") << "{\"rank\": " << t.rank << ", \"tid\": " << t.tid << ", \"cpu_s\": " << num(t.cpu_s)
      << ", \"sampled_s\": " << num(t.sampled_s) << ", \"sigprof_blocked\": " << t.sigprof_blocked << "}";
  }
  o << "]},\n";
  o << "    \"functions_approximate\": " << (r.pmu_functions_approximate() ? "true" : "false") << "\n  },\n";
  o << "  \"oversubscription\": {\"oversubscribed\": " << (r.oversubscribed ? "true" : "false")
    << ", \"note\": " << q(r.oversubscription) << "},\n";
  o << "  \"hotspots\": {\n";
  hot(o, "all", r.hot_all, false);
  hot(o, "critical_path", r.hot_path, false);
  hot(o, "critical_path_compute", r.hot_path_compute, false);
  hot(o, "inclusive_all", r.hot_incl_all, false);
  hot(o, "inclusive_critical_path", r.hot_incl_path, false);
  hot(o, "critical_path_mpi", r.hot_path_mpi, true);
  o << "  }" << wait_states_json(r) << communication_json(r) << what_if_json(r.what_if);
  if (r.timeline.written || !r.timeline.note.empty()) o << ",\n  \"timeline\": " << timeline_summary_json(r.timeline);
  o << "\n}\n";
  return o.str();
}

// Keys of critical_path for user regions and phases (docs/report.md).
void append_region_json(std::ostringstream& o, const Report& r) {
  const RegionSection& g = r.regions;
  o << ",\n    \"by_region\": [";
  for (size_t i = 0; i < g.rows.size(); ++i) {
    const RegionRow& w = g.rows[i];
    o << (i ? ",\n      " : "\n      ") << "{\"region\": " << q(w.region) << ", \"time_s\": " << num(w.time_s)
      << ", \"compute_s\": " << num(w.compute_s) << ", \"mpi_s\": " << num(w.mpi_s)
      << ", \"inclusive_s\": " << num(w.inclusive_s) << ", \"mean_open_s\": " << num(w.mean_open_s) << "}";
  }
  o << (g.rows.empty() ? "]" : "\n    ]") << ",\n    \"outside_regions_s\": " << num(g.outside_s);
  o << ",\n    \"region_unmatched_ends\": " << g.unmatched_ends << ",\n    \"by_phase\": [";
  for (size_t i = 0; i < g.phases.size(); ++i) {
    const PhaseRow& p = g.phases[i];
    o << (i ? ",\n      " : "\n      ") << "{\"phase\": " << q(p.phase) << ", \"time_s\": " << num(p.time_s)
      << ", \"compute_s\": " << num(p.compute_s) << ", \"mpi_s\": " << num(p.mpi_s) << "}";
  }
  o << (g.phases.empty() ? "]" : "\n    ]");
}

}  // namespace cpath
