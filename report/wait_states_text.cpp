// Text block "Wait states", "Root causes", "Efficiency (POP model)" (docs/report.md).
#include "report.h"
#include "text_format.h"

namespace cpath {

namespace {

std::string ms(double s) { return s >= 0.1 ? fmt("%.3f s", s) : fmt("%.2f ms", s * 1e3); }

std::string worst_text(const WaitWorst& w) {
  return fmt("%s at %s on rank %d waits %s for %s at %s on rank %d%s", w.call.c_str(), w.site.c_str(), w.waiting_rank,
             ms(w.lost_s).c_str(), w.partner_call.c_str(), w.partner_site.c_str(), w.partner_rank,
             w.on_path ? " (on the critical path)" : "");
}

// A POP factor (a fraction) as a whole percentage; not text_format.h's pct(part, whole).
std::string factor_pct(double v) { return fmt("%.0f%%", 100 * v); }

}  // namespace

std::string wait_states_text(const Report& r) {
  const WaitStatesSection& w = r.waits;
  if (!w.computed) return "";
  std::string o = "\n--- Wait states (time ranks spent waiting for another rank; what caused it)\n";
  bool any = false;
  for (const WaitStateRow& p : w.patterns) {
    if (!p.listed) continue;
    if (!any) o += fmt("%-20s %10s %8s %11s %10s  %s\n", "Pattern", "Lost(s)", "of CPU", "On path(s)", "Instances", "Worst instance");
    any = true;
    o += fmt("%-20s %10.3f %7.1f%% %11.3f %10llu  %s\n", p.pattern.c_str(), p.lost_s, 100 * p.share, p.on_path_s,
             static_cast<unsigned long long>(p.instances), p.worst.empty() ? "" : worst_text(p.worst[0]).c_str());
  }
  if (!any) o += fmt("none above %.1f%% of elapsed x ranks\n", 100 * w.threshold_share);
  for (const WaitStateRow& p : w.patterns)
    if (p.listed && !p.worst.empty()) {
      const WaitWorst& x = p.worst[0];
      o += fmt("  hint: %s at %s: %s", p.pattern.c_str(), x.site.c_str(), p.hint.c_str());
      if (x.optimal_distance_s >= 0)
        o += fmt(" (this %s could come %s later without waiting)", x.call.c_str(), ms(x.optimal_distance_s).c_str());
      o += "\n";
    }
  // Seed 001's early/late send patterns: the point-to-point rows above split by the send's
  // call (each pattern's lines sum to its row); only for patterns listed above.
  bool head = false;
  for (const WaitModeRow& m : w.by_send_mode) {
    bool listed = false;
    for (const WaitStateRow& p : w.patterns) listed |= p.listed && p.pattern == m.pattern;
    if (!listed) continue;
    if (!head) o += "  by send mode:\n";
    head = true;
    o += fmt("    %-27s %-14s %10.3f s %8llu\n", m.pattern.c_str(), m.send_mode.c_str(), m.lost_s,
             static_cast<unsigned long long>(m.instances));
  }
  if (!w.root_causes.empty()) {
    o += "--- Root causes (compute that made other ranks wait)\n";
    for (const RootCauseRow& c : w.root_causes)
      o += fmt("  %8.3f s  %s%s -> %d rank%s waited (%llu times)\n", c.waiting_caused_s, c.long_term ? "propagated through " : "",
               c.description.c_str(), c.ranks_waiting, c.ranks_waiting == 1 ? "" : "s",
               static_cast<unsigned long long>(c.instances));
  }
  const EfficiencyRow& e = w.efficiency;
  if (e.known) {
    o += "--- Efficiency (POP model)\n";
    o += fmt("  Parallel efficiency %s = load balance %s x communication efficiency %s (serialisation %s x transfer %s)\n",
             factor_pct(e.parallel).c_str(), factor_pct(e.load_balance).c_str(), factor_pct(e.communication).c_str(),
             factor_pct(e.serialisation).c_str(), factor_pct(e.transfer).c_str());
    o += "  Ideal run (zero-cost transfers): " + e.ideal_source + "\n";
  }
  return o;
}

}  // namespace cpath
