// report.json members "communication", "startup" and "placement" (docs/report.md).
#include <sstream>

#include "json_format.h"
#include "report.h"

namespace cpath {

namespace {

using json::num;
using json::q;

std::string bytes_or_null(int64_t b) { return b < 0 ? "null" : std::to_string(b); }

std::string stats(const double v[3]) {
  return "{\"min\": " + num(v[0]) + ", \"median\": " + num(v[1]) + ", \"max\": " + num(v[2]) + "}";
}

void communication(std::ostringstream& o, const CommunicationReport& c) {
  o << ",\n  \"communication\": {\n";
  o << "    \"files\": {\"p2p\": \"comm_p2p.csv\", \"collectives\": \"comm_collectives.csv\", "
       "\"histogram\": \"comm_histogram.csv\"},\n";
  o << "    \"pairs\": " << c.pairs.size() << ",\n";
  o << "    \"p2p_bytes\": " << c.p2p_bytes << ",\n";
  o << "    \"p2p_messages\": " << c.p2p_messages << ",\n";
  o << "    \"gathered_bytes\": " << c.gathered_bytes << ",\n";
  o << "    \"p2p_top\": [";
  for (size_t i = 0; i < c.top.size(); ++i) {
    const P2PPair& p = c.top[i];
    o << (i ? ",\n      " : "\n      ") << "{\"src\": " << p.src << ", \"dst\": " << p.dst << ", \"bytes\": " << p.bytes
      << ", \"messages\": " << p.messages << "}";
  }
  o << (c.top.empty() ? "]" : "\n    ]") << ",\n    \"collectives\": [";
  for (size_t i = 0; i < c.top_collectives.size(); ++i) {
    const CollectiveSummary& s = c.top_collectives[i];
    o << (i ? ",\n      " : "\n      ") << "{\"comm\": " << q(s.comm) << ", \"op\": " << q(s.op)
      << ", \"comm_size\": " << s.comm_size << ", \"ranks\": " << s.ranks << ", \"calls\": " << s.calls
      << ", \"bytes_sent\": " << bytes_or_null(s.bytes_sent) << ", \"bytes_recv\": " << bytes_or_null(s.bytes_recv)
      << ", \"time_s\": " << num(s.time_s) << ", \"time_max_rank_s\": " << num(s.time_max_rank_s) << "}";
  }
  o << (c.top_collectives.empty() ? "]" : "\n    ]") << ",\n";
  o << "    \"histogram\": {\n      \"bins\": " << kSizeBins << ",\n      \"lower_bytes\": [0";
  for (int b = 1; b < kSizeBins; ++b) {
    if (b <= 64) o << ", " << (1ull << (b - 1));
    else o << ", 18446744073709551615";  // bin 65 holds nothing (sizes are below 2^64): UINT64_MAX, which a u64 reader takes
  }
  o << "],\n";
  const char* kinds[kHistKinds] = {"p2p", "collective"};
  for (int k = 0; k < kHistKinds; ++k) {
    o << "      " << q(kinds[k]) << ": [";
    for (int b = 0; b < kSizeBins; ++b) o << (b ? ", " : "") << c.job_histogram[k][b];
    o << "]" << (k + 1 < kHistKinds ? ",\n" : "\n");
  }
  o << "    },\n    \"notes\": [";
  for (size_t i = 0; i < c.notes.size(); ++i) o << (i ? ", " : "") << q(c.notes[i]);
  o << "]\n  }";
}

void startup(std::ostringstream& o, const StartupReport& s, double cp_length_s) {
  o << ",\n  \"startup\": {\n";
  o << "    \"slowest_rank\": " << s.slowest_rank << ",\n";
  o << "    \"slowest_host\": " << q(s.slowest_host) << ",\n";
  o << "    \"last_init_rank\": " << s.last_init_rank << ",\n";
  o << "    \"init_s\": " << stats(s.init) << ",\n";
  o << "    \"preinit_s\": " << stats(s.preinit) << ",\n";
  o << "    \"finalize_s\": " << stats(s.finalize) << ",\n";
  o << "    \"preinit_known\": " << (s.preinit_known ? "true" : "false") << ",\n";
  o << "    \"startup_s\": " << num(s.startup_s) << ",\n";
  o << "    \"run_s\": " << num(s.run_s) << ",\n";
  o << "    \"share_of_elapsed\": " << num(s.share_of_elapsed) << ",\n";
  o << "    \"on_critical_path_s\": " << num(s.on_critical_path_s) << ",\n";
  o << "    \"critical_path_share\": " << num(cp_length_s > 0 ? s.on_critical_path_s / cp_length_s : 0) << ",\n";
  o << "    \"file\": \"startup.csv\"\n  }";
}

void placement(std::ostringstream& o, const PlacementReport& p) {
  size_t moved = 0;
  for (size_t i = 0; i < p.current.size() && i < p.suggested.size(); ++i) moved += p.current[i] != p.suggested[i];
  o << ",\n  \"placement\": {\n";
  o << "    \"ranks_per_node\": " << p.ranks_per_node << ",\n";
  o << "    \"nodes\": " << p.node_names.size() << ",\n";
  o << "    \"p2p_bytes\": " << p.p2p_bytes << ",\n";
  o << "    \"current_internode_bytes\": " << p.current_internode_bytes << ",\n";
  o << "    \"suggested_internode_bytes\": " << p.suggested_internode_bytes << ",\n";
  o << "    \"moved_ranks\": " << moved << ",\n";
  o << "    \"mapper\": " << q(p.mapper) << ",\n";
  o << "    \"note\": " << q(p.note) << ",\n";
  o << "    \"rankfile\": " << q(p.rankfile) << ",\n";
  o << "    \"hostfile\": " << q(p.hostfile) << ",\n";
  o << "    \"topologies\": [";
  for (size_t i = 0; i < p.topologies.size(); ++i) {
    const TopologyInfo& t = p.topologies[i];
    o << (i ? ", " : "") << "{\"comm\": " << q(t.comm) << ", \"kind\": " << q(t.kind) << ", \"size\": " << t.size
      << ", \"reordered_ranks\": " << t.moved << "}";
  }
  o << "]\n  }";
}

}  // namespace

std::string communication_json(const Report& r) {
  std::ostringstream o;
  if (r.communication.present) communication(o, r.communication);
  if (r.startup.present) startup(o, r.startup, r.cp_length_s);
  if (r.placement.present) placement(o, r.placement);
  return o.str();
}

}  // namespace cpath
