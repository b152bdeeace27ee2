// report.json members "wait_states", "root_causes", "efficiency" (docs/report.md).
#include <sstream>

#include "json_format.h"
#include "report.h"

namespace cpath {

std::string wait_states_json(const Report& r) {
  using json::num;
  using json::q;
  const WaitStatesSection& w = r.waits;
  if (!w.computed) return "";
  std::ostringstream o;
  o << ",\n  \"wait_states\": [";
  for (size_t i = 0; i < w.patterns.size(); ++i) {
    const WaitStateRow& p = w.patterns[i];
    o << (i ? ",\n    " : "\n    ") << "{\"pattern\": " << q(p.pattern) << ", \"lost_s\": " << num(p.lost_s)
      << ", \"share\": " << num(p.share) << ", \"on_path_s\": " << num(p.on_path_s) << ", \"instances\": " << p.instances
      << ", \"listed\": " << (p.listed ? "true" : "false") << ", \"hint\": " << q(p.hint) << ", \"worst\": [";
    for (size_t k = 0; k < p.worst.size(); ++k) {
      const WaitWorst& x = p.worst[k];
      o << (k ? ",\n      " : "\n      ") << "{\"description\": "
        << q(x.call + " at " + x.site + " on rank " + std::to_string(x.waiting_rank) + " waits for " + x.partner_call +
             " at " + x.partner_site + " on rank " + std::to_string(x.partner_rank))
        << ", \"call\": " << q(x.call) << ", \"site\": " << q(x.site) << ", \"waiting_rank\": " << x.waiting_rank
        << ", \"partner_call\": " << q(x.partner_call) << ", \"partner_site\": " << q(x.partner_site)
        << ", \"partner_rank\": " << x.partner_rank << ", \"lost_s\": " << num(x.lost_s)
        << ", \"on_path\": " << (x.on_path ? "true" : "false")
        << ", \"optimal_distance_s\": " << (x.optimal_distance_s >= 0 ? num(x.optimal_distance_s) : "null") << "}";
    }
    o << (p.worst.empty() ? "]}" : "\n    ]}");
  }
  o << (w.patterns.empty() ? "]" : "\n  ]") << ",\n  \"wait_states_threshold_share\": " << num(w.threshold_share);
  o << ",\n  \"wait_states_by_send_mode\": [";
  for (size_t i = 0; i < w.by_send_mode.size(); ++i) {
    const WaitModeRow& m = w.by_send_mode[i];
    o << (i ? ",\n    " : "\n    ") << "{\"pattern\": " << q(m.pattern) << ", \"send_mode\": " << q(m.send_mode)
      << ", \"lost_s\": " << num(m.lost_s) << ", \"instances\": " << m.instances << "}";
  }
  o << (w.by_send_mode.empty() ? "]" : "\n  ]");
  o << ",\n  \"root_causes\": [";
  for (size_t i = 0; i < w.root_causes.size(); ++i) {
    const RootCauseRow& c = w.root_causes[i];
    o << (i ? ",\n    " : "\n    ") << "{\"description\": " << q(c.description) << ", \"rank\": " << c.rank
      << ", \"delay_s\": " << num(c.delay_s) << ", \"waiting_caused_s\": " << num(c.waiting_caused_s)
      << ", \"ranks_waiting\": " << c.ranks_waiting << ", \"instances\": " << c.instances
      << ", \"long_term\": " << (c.long_term ? "true" : "false") << "}";
  }
  o << (w.root_causes.empty() ? "]" : "\n  ]");
  const EfficiencyRow& e = w.efficiency;
  if (e.known) {
    o << ",\n  \"efficiency\": {\"parallel\": " << num(e.parallel) << ", \"load_balance\": " << num(e.load_balance)
      << ", \"communication\": " << num(e.communication) << ", \"serialisation\": " << num(e.serialisation)
      << ", \"transfer\": " << num(e.transfer) << "}";
    o << ",\n  \"efficiency_detail\": {\"useful_max_s\": " << num(e.useful_max_s)
      << ", \"useful_mean_s\": " << num(e.useful_mean_s) << ", \"ideal_s\": " << num(e.ideal_s)
      << ", \"elapsed_s\": " << num(e.elapsed_s) << ", \"ideal_source\": " << q(e.ideal_source) << "}";
  } else {
    o << ",\n  \"efficiency\": null";
  }
  return o.str();
}

}  // namespace cpath
