// The text report's what-if and placement sections (report/what_if_writers.cpp,
// report/communication_text.cpp) as real applications showed them wrong: activity names cut
// where they differ, and one line per topology communicator with a reorder offered where the
// plan moves nobody (CP2K, 4 ranks: 28 identical lines beside "all ranks share one node").
#include <gtest/gtest.h>

#include <string>

#include "report.h"
#include "what_if_report.h"

namespace cpath {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportSections, WhatIfNamesThatDifferLateAreShownWhole) {
  WhatIfReport w;
  w.present = true;
  w.measured_s = 14.0;
  WhatIfRow id;
  id.scenario = "re-timed as measured (every factor 1)";
  id.run_time_s = 14.0;
  w.rows.push_back(id);
  const std::string a = "compute between MPI_Alltoallv at cp2k.psmp+0x27b214d and MPI_Comm_group at cp2k.psmp+0x27ff2b8 2x faster on every rank";
  const std::string b = "compute between MPI_Alltoallv at cp2k.psmp+0x27b214d and MPI_Allreduce at cp2k.psmp+0x27ff2b8 2x faster on every rank";
  for (const std::string& s : {a, b}) {
    WhatIfRow r;
    r.scenario = s;
    r.kind = "activity";
    r.run_time_s = 12.0;
    r.gain_s = 2.0;
    w.rows.push_back(r);
  }
  const std::string t = what_if_text(w);
  EXPECT_NE(t.find(a), std::string::npos) << t;
  EXPECT_NE(t.find(b), std::string::npos) << t;
  // Beyond the widest column a name is cut, not the numbers after it.
  w.rows[1].scenario = std::string(200, 'x');
  const std::string u = what_if_text(w);
  EXPECT_EQ(u.find(std::string(125, 'x')), std::string::npos);
  EXPECT_NE(u.find(std::string(124, 'x') + "     12.000 s"), std::string::npos) << u;
}

TEST(ReportSections, TopologyCommunicatorsAreGroupedAndReorderOfferedOnlyWhereItHelps) {
  Report r;
  PlacementReport& p = r.placement;
  p.present = true;
  p.node_names = {"n0"};
  p.current = p.suggested = {0, 0, 0, 0};
  for (int i = 0; i < 28; ++i) p.topologies.push_back(TopologyInfo{"world#" + std::to_string(i) + ":0", "cartesian", 4, 0});
  p.topologies.push_back(TopologyInfo{"world#40:0", "cartesian", 2, 1});
  std::string t = communication_text(r);
  EXPECT_EQ(count(t, "Cartesian communicator"), 2u) << t;
  EXPECT_NE(t.find("world#0:0, world#1:0, world#2:0 and 25 more (4 ranks): MPI kept its parent's rank order"), std::string::npos) << t;
  EXPECT_NE(t.find("world#40:0 (2 ranks): MPI reordered 1 ranks"), std::string::npos) << t;
  EXPECT_EQ(t.find("topology-aware reorder"), std::string::npos) << t;  // the plan moves nobody
  p.suggested = {0, 1, 0, 1};
  p.node_names = {"n0", "n1"};
  t = communication_text(r);
  EXPECT_NE(t.find("topology-aware reorder could achieve the suggestion"), std::string::npos) << t;
}

}  // namespace
}  // namespace cpath
