// The report's region section (include/cpath.h markers), filled by analysis/regions.cpp and
// written into the text report (report_regions.cpp) and report.json (report_json.cpp).
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace cpath {

struct Report;

struct RegionRow {
  std::string region;
  double time_s = 0;       // path time with this region innermost (exclusive)
  double compute_s = 0;    // split of time_s
  double mpi_s = 0;
  double inclusive_s = 0;  // path time with this region open, nested regions included
  double mean_open_s = 0;  // time the region was open per rank (all threads), mean over ranks
};

struct PhaseRow {
  std::string phase;  // "" = before the first phase marker
  double time_s = 0, compute_s = 0, mpi_s = 0;
};

struct RegionSection {
  bool used = false;        // some rank recorded region or phase markers
  std::vector<RegionRow> rows;
  std::vector<PhaseRow> phases;
  double outside_s = 0;     // path time outside any region
  uint64_t unmatched_ends = 0;
};

void append_region_text(std::string& o, const Report& r);
void append_region_json(std::ostringstream& o, const Report& r);

}  // namespace cpath
