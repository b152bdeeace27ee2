#include "path_over_time.h"

#include <algorithm>

namespace cpath {

std::vector<double> path_time_bins(const WalkResult& w, int64_t t0, int64_t t1, int nbins) {
  std::vector<double> out(3 * static_cast<size_t>(nbins), 0.0);
  if (t1 <= t0 || nbins <= 0) return out;
  const double width = static_cast<double>(t1 - t0) / nbins;
  for (const Segment& s : w.path) {
    const int64_t b = std::max(s.begin, t0), e = std::min(s.end, t1);
    if (e <= b) continue;
    const size_t row = s.kind == SegmentKind::Mpi ? 1 : s.kind == SegmentKind::Startup ? 2 : 0;
    int k = std::min(nbins - 1, static_cast<int>(static_cast<double>(b - t0) / width));
    for (double lo = static_cast<double>(b); lo < static_cast<double>(e) && k < nbins; ++k) {
      const double edge = k + 1 == nbins ? static_cast<double>(e) : t0 + width * (k + 1);
      const double hi = std::min(static_cast<double>(e), edge);
      if (hi > lo) out[row * static_cast<size_t>(nbins) + static_cast<size_t>(k)] += (hi - lo) * 1e-9;
      lo = std::max(lo, hi);
    }
  }
  return out;
}

}  // namespace cpath
