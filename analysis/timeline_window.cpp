#include "timeline_window.h"

#include <algorithm>
#include <cstdio>

namespace cpath {

void add_path_weight(const TimelinePart& p, const TimelineWindow& bins, std::vector<double>* weight) {
  weight->resize(bins.bins, 0.0);
  for (const TlPathSegment& s : p.path) {
    if (s.end <= s.begin || s.kind == TlPathKind::Startup) continue;
    if (s.kind == TlPathKind::Mpi && s.name < p.strings.size() &&
        (p.strings[s.name].compare(0, 8, "MPI_Init") == 0 || p.strings[s.name] == "MPI_Finalize"))
      continue;
    const double len = static_cast<double>(s.end - s.begin);
    const uint32_t b0 = bins.bin_of(s.begin), b1 = bins.bin_of(s.end - 1);
    for (uint32_t b = b0; b <= b1; ++b) {
      const int64_t lo = std::max(s.begin, bins.bin_begin(b));
      const int64_t hi = b + 1 == bins.bins ? s.end : std::min(s.end, bins.bin_begin(b + 1));
      if (hi > lo) (*weight)[b] += len * static_cast<double>(hi - lo) * 1e-18;
    }
  }
}

TimelineWindow choose_timeline_window(const std::vector<uint64_t>& bytes, const std::vector<double>& weight,
                                      uint64_t budget, int64_t origin, int64_t span) {
  TimelineWindow w;
  w.bins = static_cast<uint32_t>(bytes.size());
  w.origin = origin;
  w.span = span > 0 ? span : 1;
  uint64_t total = 0;
  for (uint64_t b : bytes) total += b;
  if (total <= budget || bytes.empty()) return w;
  w.all = false;
  uint32_t h = 0;
  for (uint32_t b = 1; b < w.bins; ++b)
    if (weight[b] > weight[h]) h = b;
  if (bytes[h] > budget) {  // not even the heaviest bin fits: keep no slices
    w.lo = 1;
    w.hi = 0;
    return w;
  }
  uint64_t used = bytes[h];
  w.lo = w.hi = h;
  while (true) {
    const bool left = w.lo > 0 && used + bytes[w.lo - 1] <= budget;
    const bool right = w.hi + 1 < w.bins && used + bytes[w.hi + 1] <= budget;
    if (!left && !right) break;
    // Grow towards the heavier side of the path (ties: the cheaper side, then earlier).
    bool go_left = left;
    if (left && right) {
      const double wl = weight[w.lo - 1], wr = weight[w.hi + 1];
      go_left = wl != wr ? wl > wr : bytes[w.lo - 1] <= bytes[w.hi + 1];
    }
    if (go_left) used += bytes[--w.lo];
    else used += bytes[++w.hi];
  }
  return w;
}

std::vector<uint64_t> timeline_histogram(const TimelinePart& p, const TimelineInfo& info, bool first) {
  TimelineWindow bins;
  bins.bins = kTimelineBins;
  bins.origin = info.origin_ns;
  bins.span = info.span_ns > 0 ? info.span_ns : 1;
  std::vector<uint64_t> h(kTlHistSize, 0);
  timeline_json_costs(p, info, [&](const TlSlice& s, size_t bytes, unsigned slices) {
    const uint32_t b = bins.bin_of(s.begin);
    h[b] += bytes;
    h[kTlHistCounts + b] += slices;
  });
  timeline_json_path_costs(p, info, [&](int64_t t, size_t bytes) { h[kTlHistPath + bins.bin_of(t)] += bytes; });
  h[kTlHistNames] = timeline_json_fixed_size(p, info, first);
  return h;
}

uint64_t timeline_path_and_names_bytes(const std::vector<uint64_t>& hist) {
  uint64_t n = hist[kTlHistNames];
  for (uint32_t b = 0; b < kTimelineBins; ++b) n += hist[kTlHistPath + b];
  return n;
}

TimelineWindow decide_timeline_window(const std::vector<uint64_t>& hist, const std::vector<double>& weight,
                                      TimelineInfo* info) {
  std::vector<uint64_t> bytes(hist.begin(), hist.begin() + kTimelineBins);
  const uint64_t names = hist[kTlHistNames], path = timeline_path_and_names_bytes(hist) - names;
  // Room for the header, footer and the two window markers, with the longest note.
  TimelineInfo longest = *info;
  longest.note.assign(512, 'x');
  longest.capped = true;
  const uint64_t reserve = timeline_json_header(longest).size() + timeline_json_footer().size() + 2 * (256 + 512);
  const uint64_t cap = info->cap_bytes;
  // The whole path when it fits with the names; else the path is cut to the window like the calls.
  const bool path_all = names + path + reserve <= cap;
  const uint64_t keep = names + (path_all ? path : 0) + reserve;
  if (!path_all)
    for (uint32_t b = 0; b < kTimelineBins; ++b) bytes[b] += hist[kTlHistPath + b];
  TimelineWindow w = choose_timeline_window(bytes, weight, cap > keep ? cap - keep : 0, info->origin_ns,
                                            info->span_ns > 0 ? info->span_ns : 1);
  w.path_all = w.all || path_all;
  info->slices_total = info->slices_kept = 0;
  for (uint32_t b = 0; b < kTimelineBins; ++b) {
    info->slices_total += hist[kTlHistCounts + b];
    if (w.keeps_bin(b)) info->slices_kept += hist[kTlHistCounts + b];
  }
  info->capped = !w.all;
  info->window_begin_ns = w.all ? info->origin_ns : w.bin_begin(w.lo);
  // Exclusive: the last bin also holds the last MPI_Finalize entry, at origin + span exactly
  // (bin_of clamps it there), which a window ending at bin_begin(bins) would leave outside.
  const int64_t run_end = info->origin_ns + info->span_ns + 1;
  info->window_end_ns = w.all ? run_end : w.lo > w.hi ? w.bin_begin(w.lo) : w.hi + 1 >= w.bins ? run_end : w.bin_begin(w.hi + 1);
  info->note = timeline_cap_note(cap, info->capped, w, info->slices_kept, info->slices_total, names + path);
  return w;
}

std::string timeline_cap_note(uint64_t cap, bool capped, const TimelineWindow& w, uint64_t kept, uint64_t total,
                              uint64_t path_bytes) {
  char buf[512];
  std::string out;
  if (!capped) return out;
  const double mib = static_cast<double>(cap) / (1 << 20);
  const double path_mib = static_cast<double>(path_bytes) / (1 << 20);
  if (w.lo > w.hi) {
    if (w.path_all)
      std::snprintf(buf, sizeof buf,
                    "size cap %.1f MiB (option timeline_max) reached: the critical path and track names alone take "
                    "%.1f MiB, so only they are kept (no MPI calls)",
                    mib, path_mib);
    else
      std::snprintf(buf, sizeof buf,
                    "size cap %.1f MiB (option timeline_max) reached: not even the busiest part of the run fits, so only "
                    "the track names are kept (the critical path alone takes %.1f MiB)",
                    mib, path_mib);
    return buf;
  }
  const double t0 = static_cast<double>(w.bin_begin(w.lo) - w.origin) * 1e-9;
  const double t1 = static_cast<double>(w.bin_begin(w.hi + 1) - w.origin) * 1e-9;
  if (w.path_all)
    std::snprintf(buf, sizeof buf,
                  "size cap %.1f MiB (option timeline_max) reached: the whole critical path is kept, and the MPI calls "
                  "and computation of %.6f s to %.6f s (around the path's heaviest part; %llu of %llu slices)",
                  mib, t0, t1, static_cast<unsigned long long>(kept), static_cast<unsigned long long>(total));
  else
    std::snprintf(buf, sizeof buf,
                  "size cap %.1f MiB (option timeline_max) reached: the critical path alone takes %.1f MiB, so the path, "
                  "the MPI calls and computation are kept for %.6f s to %.6f s only (around the path's heaviest part; "
                  "%llu of %llu slices)",
                  mib, path_mib, t0, t1, static_cast<unsigned long long>(kept), static_cast<unsigned long long>(total));
  return buf;
}

}  // namespace cpath
