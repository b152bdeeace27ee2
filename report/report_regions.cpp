// The region section of the text report (docs/regions.md); its JSON is in report_json.cpp.
#include <cstdio>

#include "report.h"
#include "text_format.h"

namespace cpath {

namespace {

std::string cut(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

}  // namespace

void append_region_text(std::string& o, const Report& r) {
  const RegionSection& g = r.regions;
  if (!g.used) return;
  char line[512];
  o += "\n--- Critical path by region (Excl: region innermost; Incl: nested regions included;"
       " Open/rank: mean time the region was open per rank)\n";
  std::snprintf(line, sizeof line, "%-32s %11s %7s %11s %11s %11s %11s\n", "Region", "Excl(s)", "Share", "Compute(s)",
                "MPI(s)", "Incl(s)", "Open/rank(s)");
  o += line;
  size_t shown = 0;
  for (const RegionRow& w : g.rows) {
    if (shown++ >= r.top) break;
    std::snprintf(line, sizeof line, "%-32s %11.6f %6.1f%% %11.6f %11.6f %11.6f %11.6f\n", cut(w.region, 32).c_str(),
                  w.time_s, pct(w.time_s, r.cp_length_s), w.compute_s, w.mpi_s, w.inclusive_s, w.mean_open_s);
    o += line;
  }
  std::snprintf(line, sizeof line, "%-32s %11.6f %6.1f%%\n", "(outside any region)", g.outside_s,
                pct(g.outside_s, r.cp_length_s));
  o += line;
  if (g.rows.size() > r.top)
    o += "(" + std::to_string(g.rows.size() - r.top) + " more regions in report.json)\n";
  if (g.unmatched_ends)
    o += "Note: " + std::to_string(g.unmatched_ends) + " cpath_region_end call(s) without a matching begin were ignored\n";
  if (!g.phases.empty()) {
    o += "\n--- Critical path by phase (cpath_phase markers)\n";
    std::snprintf(line, sizeof line, "%-32s %11s %7s %11s %11s\n", "Phase", "Time(s)", "Share", "Compute(s)", "MPI(s)");
    o += line;
    for (const PhaseRow& p : g.phases) {
      std::snprintf(line, sizeof line, "%-32s %11.6f %6.1f%% %11.6f %11.6f\n",
                    p.phase.empty() ? "(before the first phase)" : cut(p.phase, 32).c_str(), p.time_s,
                    pct(p.time_s, r.cp_length_s), p.compute_s, p.mpi_s);
      o += line;
    }
  }
}

}  // namespace cpath
