// cpath-ref's twin of analysis/communication.cpp: the communication matrices and size
// histograms computed the plain way from the loaded per-rank traces, with its own request
// tracking and its own rules, printed in the report's file formats (docs/report.md) so that
// the differential test compares files byte for byte.
//
//   cpath-ref --comm DIR [OUTDIR]   comm_p2p.csv on stdout; with OUTDIR, all three files there
#pragma once
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "rank_trace.h"

namespace cpath {
namespace ref {

struct CommMatrices {
  // (src, dst) -> bytes, messages
  std::vector<std::tuple<int32_t, int32_t, uint64_t, uint64_t>> p2p;
  // comm, op, rank, comm size, calls, sent, received (-1 unknown), time ns
  std::vector<std::tuple<std::string, std::string, int32_t, int32_t, uint64_t, int64_t, int64_t, int64_t>> collectives;
  // rank, kind (0 p2p, 1 collective), bin, count
  std::vector<std::tuple<int32_t, int, int, uint64_t>> histogram;
};

CommMatrices communication(const std::vector<RankTrace>& ranks);

// Command-line mode; argv[0] is "--comm".
int communication_main(int argc, char** argv);

}  // namespace ref
}  // namespace cpath
