// Text report sections: communication, start-up, placement. Kept short; the full data are in
// the files beside report.json.
#include <algorithm>
#include <string>
#include <vector>

#include "report.h"
#include "text_format.h"

namespace cpath {

namespace {

// Lower bound of a size bin: "0B", "64B", "4KiB", "2MiB", ...
std::string bin_label(int bin) {
  if (bin == 0) return "0B";
  if (bin > 64) return "2^64B";
  const int e = bin - 1;
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return std::to_string(1ull << (e % 10)) + units[e / 10];
}

std::string known(int64_t b) { return b < 0 ? std::string("?") : size_str(static_cast<uint64_t>(b)); }

void communication(std::string& o, const CommunicationReport& c, size_t rows) {
  o += fmt("\n--- Communication: point-to-point %zu pairs, %s in %llu messages (world ranks; matrix: comm_p2p.csv)\n",
           c.pairs.size(), size_str(c.p2p_bytes).c_str(), static_cast<unsigned long long>(c.p2p_messages));
  if (!c.top.empty()) {
    o += fmt("%6s %6s %12s %10s %7s\n", "Src", "Dst", "Bytes", "Messages", "Share");
    for (size_t i = 0; i < c.top.size() && i < rows; ++i)
      o += fmt("%6d %6d %12s %10llu %6.1f%%\n", c.top[i].src, c.top[i].dst, size_str(c.top[i].bytes).c_str(),
               static_cast<unsigned long long>(c.top[i].messages), pct(double(c.top[i].bytes), double(c.p2p_bytes)));
  }
  if (!c.top_collectives.empty()) {
    o += "Collectives by time (sums over ranks; per rank: comm_collectives.csv)\n";
    // Columns as wide as the longest name shown (intercommunicator and duplicate names are long).
    int op_w = 24, comm_w = 12;
    for (size_t i = 0; i < c.top_collectives.size() && i < rows; ++i) {
      op_w = std::max(op_w, static_cast<int>(c.top_collectives[i].op.size()));
      comm_w = std::max(comm_w, static_cast<int>(c.top_collectives[i].comm.size()));
    }
    for (size_t i = 0; i < c.top_collectives.size() && i < rows; ++i) {
      const CollectiveSummary& s = c.top_collectives[i];
      o += fmt("  %-*s on %-*s %5d ranks %9llu calls %10.6f s  sent %s, received %s\n", op_w, s.op.c_str(), comm_w,
               s.comm.c_str(), s.ranks, static_cast<unsigned long long>(s.calls), s.time_s, known(s.bytes_sent).c_str(),
               known(s.bytes_recv).c_str());
    }
  }
  o += "Message sizes (bin lower bound:count; per rank: comm_histogram.csv)\n";
  const char* names[kHistKinds] = {"p2p sends", "collectives"};
  for (int k = 0; k < kHistKinds; ++k) {
    std::string row;
    for (int b = 0; b < kSizeBins; ++b)
      if (c.job_histogram[k][b])
        row += " " + bin_label(b) + ":" + std::to_string(static_cast<unsigned long long>(c.job_histogram[k][b]));
    o += fmt("  %-12s%s\n", names[k], row.empty() ? " (none)" : row.c_str());
  }
  for (const std::string& n : c.notes) o += "Note: " + n + "\n";
}

void startup(std::string& o, const StartupReport& s, double cp_length_s) {
  o += "\n--- Start-up and shut-down (per rank: startup.csv)\n";
  o += fmt("Before MPI_Init %.3f/%.3f/%.3f s, MPI_Init %.3f/%.3f/%.3f s, MPI_Finalize to analysis %.3f/%.3f/%.3f s "
           "(min/median/max)%s\n",
           s.preinit[0], s.preinit[1], s.preinit[2], s.init[0], s.init[1], s.init[2], s.finalize[0], s.finalize[1],
           s.finalize[2], s.preinit_known ? "" : "; some ranks could not read their process start time");
  o += fmt("Slowest start-up: rank %d on %s, %.3f s before MPI_Init; rank %d entered MPI_Init last (the others waited "
           "for it there); start-up %.3f s = %.1f%% of the run\n",
           s.slowest_rank, s.slowest_host.c_str(), s.slowest_rank >= 0 ? s.preinit_s[static_cast<size_t>(s.slowest_rank)] : 0.0,
           s.last_init_rank, s.startup_s, 100.0 * s.share_of_elapsed);
  if (cp_length_s <= 0)
    o += "(no critical path computed: start-up's share of it unknown)\n";
  else if (s.on_critical_path_s > 0)
    o += fmt("Start-up is on the critical path: %.6f s (%.1f%% of the path)\n", s.on_critical_path_s,
             pct(s.on_critical_path_s, cp_length_s));
  else
    o += "Start-up is not on the critical path\n";
}

void placement(std::string& o, const PlacementReport& p) {
  o += fmt("\n--- Placement: %zu node%s (%s)\n", p.node_names.size(), p.node_names.size() == 1 ? "" : "s",
           p.ranks_per_node > 0 ? fmt("ranks_per_node=%d, ranks by slot", p.ranks_per_node).c_str()
                                : "hosts from MPI_Get_processor_name");
  o += fmt("Inter-node point-to-point bytes: current %s (%.1f%%), suggested %s (%.1f%%): %s\n",
           size_str(p.current_internode_bytes).c_str(), pct(double(p.current_internode_bytes), double(p.p2p_bytes)),
           size_str(p.suggested_internode_bytes).c_str(), pct(double(p.suggested_internode_bytes), double(p.p2p_bytes)),
           p.note.c_str());
  if (p.suggested != p.current)
    o += fmt("Run it: mpirun --rankfile %s (Open MPI), mpiexec -f %s (MPICH/Hydra)\n", p.rankfile.c_str(),
             p.hostfile.c_str());
  // One line per kind of topology, size and whether MPI reordered (a program that makes a
  // Cartesian communicator per step listed 28 identical lines), naming a few of them.
  struct Group {
    std::string kind;
    int32_t size;
    bool moved;
    std::vector<const TopologyInfo*> members;
  };
  std::vector<Group> groups;
  for (const TopologyInfo& t : p.topologies) {
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.kind == t.kind && x.size == t.size && x.moved == (t.moved > 0); });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{t.kind, t.size, t.moved > 0, {}});
    g->members.push_back(&t);
  }
  constexpr size_t kNamed = 3;
  for (const Group& g : groups) {
    const char* kind = g.kind == "cartesian" ? "Cartesian" : g.kind == "graph" ? "Graph" : "Distributed graph";
    std::string names;
    for (size_t k = 0; k < g.members.size() && k < kNamed; ++k) names += (k ? ", " : "") + g.members[k]->comm;
    if (g.members.size() > kNamed) names += fmt(" and %zu more", g.members.size() - kNamed);
    const char* plural = g.members.size() == 1 ? "communicator" : "communicators";
    if (g.moved) {
      int32_t moved = 0;
      for (const TopologyInfo* t : g.members) moved = std::max(moved, t->moved);
      o += fmt("%s %s %s (%d ranks): MPI reordered %s%d ranks; the figures above include its effect\n", kind, plural,
               names.c_str(), g.size, g.members.size() == 1 ? "" : "up to ", moved);
    } else {
      // A reorder can only help where the plan would move ranks.
      o += fmt("%s %s %s (%d ranks): MPI kept its parent's rank order (no reordering)%s\n", kind, plural, names.c_str(),
               g.size, p.suggested != p.current ? "; a topology-aware reorder could achieve the suggestion without a rankfile" : "");
    }
  }
}

}  // namespace

std::string communication_text(const Report& r) {
  std::string o;
  const size_t rows = std::min<size_t>(r.top, 5);
  if (r.communication.present) communication(o, r.communication, rows);
  if (r.startup.present) startup(o, r.startup, r.cp_length_s);
  if (r.placement.present) placement(o, r.placement);
  return o;
}

}  // namespace cpath
