// Which part of the run a capped timeline keeps: the whole critical path when it fits, and a
// window around the path's heaviest part (where its longest segments lie) as wide as the cap
// allows; when the path alone exceeds the cap, the path too only in that window.
// Pure functions of job-wide histograms, shared by the finalize-time writer and cpath-report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "critical_path_walk.h"
#include "timeline_writer.h"

namespace cpath {

constexpr uint32_t kTimelineBins = 1024;

// Adds the path segments' weight per bin: each segment counts its length times its overlap
// with the bin, so long segments (where the run's time goes) dominate. Start-up, MPI_Init and
// MPI_Finalize do not count: they are often the longest segments and the least interesting.
void add_path_weight(const TimelinePart& p, const TimelineWindow& bins, std::vector<double>* weight);

// `bytes[b]`: timeline.json bytes of the slices beginning in bin b (all ranks); `weight[b]`:
// the path's weight there. Returns a window keeping everything when it fits in `budget`,
// else the contiguous bins around the heaviest one that do (possibly none).
TimelineWindow choose_timeline_window(const std::vector<uint64_t>& bytes, const std::vector<double>& weight,
                                      uint64_t budget, int64_t origin, int64_t span);

// This rank's histogram: [0, B) timeline.json bytes of the slices beginning in each bin,
// [B, 2B) their counts, [2B, 3B) the bytes of the critical-path segments and arrivals there,
// [3B] the bytes of what is kept whatever the cap (track names). Summed over ranks it is what
// decide_timeline_window needs.
constexpr size_t kTlHistCounts = kTimelineBins, kTlHistPath = 2 * size_t{kTimelineBins},
                 kTlHistNames = 3 * size_t{kTimelineBins}, kTlHistSize = kTlHistNames + 1;
std::vector<uint64_t> timeline_histogram(const TimelinePart& p, const TimelineInfo& info, bool first);
// The bytes of the whole critical path and the track names (what a timeline keeps when the path fits).
uint64_t timeline_path_and_names_bytes(const std::vector<uint64_t>& hist);

// From the job-wide histogram and path weights, and info->cap_bytes: the window to keep;
// fills info->capped, window_*_ns, slices_total, slices_kept and note.
TimelineWindow decide_timeline_window(const std::vector<uint64_t>& hist, const std::vector<double>& weight,
                                      TimelineInfo* info);

// The sentence the file and the report carry when the cap was reached; `path_bytes`: the
// whole critical path's and the track names' bytes.
std::string timeline_cap_note(uint64_t cap, bool capped, const TimelineWindow& w, uint64_t kept, uint64_t total,
                              uint64_t path_bytes);

}  // namespace cpath
