#include <cmath>
#include <cstdio>
#include <sstream>

#include "report.h"

namespace cpath {

namespace {

std::string q(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string num(double d) {
  if (!std::isfinite(d)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", d);
  return b;
}

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

}  // namespace

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
      << ", \"time_s\": " << num(r.by_site[i].time_s) << ", \"count\": " << r.by_site[i].count << "}";
  o << (r.by_site.empty() ? "]" : "\n    ]") << ",\n    \"activities\": [";
  for (size_t i = 0; i < r.activities.size(); ++i) {
    const ActivityRow& a = r.activities[i];
    o << (i ? ",\n      " : "\n      ") << "{\"kind\": " << q(a.kind) << ", \"rank\": " << a.rank
      << ", \"description\": " << q(a.description) << ", \"activity\": " << q(a.key) << ", \"time_s\": " << num(a.time_s)
      << ", \"count\": " << a.count << ", \"imbalance_s\": " << num(a.imbalance_s) << "}";
  }
  o << (r.activities.empty() ? "]" : "\n    ]") << ",\n    \"imbalance\": [";
  for (size_t i = 0; i < r.imbalance.size(); ++i) {
    const ImbalanceRow& a = r.imbalance[i];
    o << (i ? ",\n      " : "\n      ") << "{\"activity\": " << q(a.activity) << ", \"path_s\": " << num(a.path_s)
      << ", \"mean_s\": " << num(a.mean_s) << ", \"imbalance_s\": " << num(a.imbalance_s) << "}";
  }
  o << (r.imbalance.empty() ? "]" : "\n    ]") << "\n  },\n";
  o << "  \"analysis\": {\n";
  o << "    \"postprocess_s\": " << num(r.postprocess_s) << ",\n";
  o << "    \"postprocess_share\": " << num(r.elapsed_s > 0 ? r.postprocess_s / r.elapsed_s : 0) << ",\n";
  o << "    \"clock_error_s\": " << num(r.clock_error_s) << ",\n";
  o << "    \"memory_per_rank_max_bytes\": " << r.analysis_memory_max << ",\n";
  o << "    \"phases\": {";
  for (size_t i = 0; i < r.phases.size(); ++i) o << (i ? ", " : "") << q(r.phases[i].first) << ": " << num(r.phases[i].second);
  o << "},\n";
  o << "    \"exact\": " << (r.exact ? "true" : "false") << ",\n";
  o << "    \"approximations\": [";
  for (size_t i = 0; i < r.approximations.size(); ++i) o << (i ? ", " : "") << q(r.approximations[i]);
  o << "]\n  },\n";
  o << "  \"trace\": {\n";
  o << "    \"bytes_per_rank_max\": " << r.trace_bytes_max << ",\n";
  o << "    \"bytes_total\": " << r.trace_bytes_total << ",\n";
  o << "    \"events_total\": " << r.events_total << ",\n";
  o << "    \"bytes_per_event\": " << num(r.events_total ? double(r.trace_bytes_total) / double(r.events_total) : 0) << ",\n";
  o << "    \"store\": " << q(r.store_state) << "\n  },\n";
  o << "  \"pmu\": {\n";
  o << "    \"enabled\": " << (r.pmu_enabled ? "true" : "false") << ",\n";
  o << "    \"event_source\": " << q(r.pmu_source) << ",\n";
  o << "    \"events\": " << q(r.pmu_events) << ",\n";
  o << "    \"note\": " << q(r.pmu_note) << ",\n";
  o << "    \"samples\": " << r.pmu_samples << ",\n";
  o << "    \"lost\": " << r.pmu_lost << "\n  },\n";
  o << "  \"hotspots\": {\n";
  hot(o, "all", r.hot_all, false);
  hot(o, "critical_path", r.hot_path, false);
  hot(o, "critical_path_compute", r.hot_path_compute, false);
  hot(o, "critical_path_mpi", r.hot_path_mpi, true);
  o << "  }\n}\n";
  return o.str();
}

}  // namespace cpath
