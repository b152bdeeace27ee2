#include <algorithm>
#include <sstream>

#include "json_format.h"
#include "text_format.h"
#include "what_if_report.h"

namespace cpath {

std::string what_if_text(const WhatIfReport& w) {
  if (!w.present) return w.note.empty() ? "" : "\nWhat if: " + w.note + "\n";
  std::string o = "\n--- What if (run time if this were faster; re-timed on the Program Activity Graph)\n";
  // As wide as the longest change up to kWidest characters (an activity between two calls at
  // binary offsets, "2x faster on every rank" included): two activities between the same
  // call and calls whose names differ late ("... and MPI_Cart_sub", "... and MPI_Allreduce")
  // read the same cut at 62.
  constexpr size_t kNarrowest = 62, kWidest = 124;
  size_t width = kNarrowest;
  for (const WhatIfRow& r : w.rows) width = std::max(width, std::min(kWidest, utf8_chars(r.scenario)));
  o += fmt("  %s %12s %9s\n", column("Change", width).c_str(), "New run time", "Gain");
  for (size_t i = 0; i < w.rows.size(); ++i) {
    const WhatIfRow& r = w.rows[i];
    if (i == 0) {
      o += fmt("  %s %10.3f s  (measured %.3f s)\n", column(r.scenario, width).c_str(), r.run_time_s, w.measured_s);
      continue;
    }
    const double base = w.rows[0].run_time_s;
    o += fmt("  %s %10.3f s %+8.1f%%\n", column(r.scenario, width).c_str(), r.run_time_s, base > 0 ? -100.0 * r.gain_s / base : 0.0);
    if (r.path_top.empty()) continue;
    std::string line = "    new path:";
    for (size_t k = 0; k < r.path_top.size(); ++k)
      line += fmt("%s %s on rank %d (%.0f%%)", k ? "," : "", r.path_top[k].activity.c_str(), r.path_top[k].rank,
                  r.run_time_s > 0 ? 100.0 * r.path_top[k].time_s / r.run_time_s : 0.0);
    o += line + fmt("; %lld rank change%s\n", r.path_rank_changes, r.path_rank_changes == 1 ? "" : "s");
  }
  // Names with spaces cannot be typed into LIBCPATH_OPTIONS as they stand: show the quoted form
  // once, ready to copy (any activity row above, any factor).
  for (const WhatIfRow& r : w.rows)
    if (r.kind == "activity" && !r.option.empty()) {
      const std::string opt = r.option.substr(0, r.option.rfind(':')) + ":0.25";
      o += "  Another factor, or any activity named above: " +
           (opt.find('\'') == std::string::npos ? "LIBCPATH_OPTIONS='" + opt + "'" : opt) + " (or cpath -o)\n";
      break;
    }
  if (!w.note.empty()) o += "  Note: " + w.note + "\n";
  return o;
}

std::string what_if_json(const WhatIfReport& w) {
  using json::num;
  using json::q;
  // Without a table the reason still reaches scripts: why the re-timing was not done.
  if (!w.present) return w.note.empty() ? "" : ",\n  \"what_if_info\": {\"note\": " + q(w.note) + "}";
  std::ostringstream o;
  o << ",\n  \"what_if\": [";
  for (size_t i = 0; i < w.rows.size(); ++i) {
    const WhatIfRow& r = w.rows[i];
    o << (i ? ",\n" : "\n") << "    {\"scenario\": " << q(r.scenario) << ", \"kind\": " << q(r.kind)
      << ", \"target\": " << q(r.target) << ", \"factor\": " << num(r.factor) << ", \"run_time_s\": " << num(r.run_time_s)
      << ", \"gain_s\": " << num(r.gain_s) << ", \"end_rank\": " << r.end_rank;
    if (!r.option.empty()) o << ", \"option\": " << q(r.option);
    if (r.path_rank_changes >= 0) {
      o << ", \"path_top\": [";
      for (size_t k = 0; k < r.path_top.size(); ++k)
        o << (k ? ", " : "") << "{\"activity\": " << q(r.path_top[k].activity) << ", \"rank\": " << r.path_top[k].rank
          << ", \"time_s\": " << num(r.path_top[k].time_s) << "}";
      o << "], \"path_rank_changes\": " << r.path_rank_changes;
    }
    o << "}";
  }
  o << "\n  ],\n  \"what_if_info\": {\"measured_s\": " << num(w.measured_s) << ", \"seconds\": " << num(w.seconds)
    << ", \"forward_pass_s\": " << num(w.forward_s) << ", \"new_paths_s\": " << num(w.paths_s) << ", \"note\": " << q(w.note) << "}";
  return o.str();
}

}  // namespace cpath
