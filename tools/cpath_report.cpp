// cpath-report: renders a report directory again without rerunning the job, e.g. after an
// upgrade of libcpath:
//   cpath-report [--timeline-max SIZE] [--no-timeline] DIR
// writes DIR/report.html from DIR/report.json, and DIR/timeline.json from DIR/timeline.bin
// (what the run kept under its cap; a smaller --timeline-max selects again inside it).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "clock.h"
#include "options.h"
#include "report.h"
#include "timeline_window.h"
#include "timeline_writer.h"

using namespace cpath;

namespace {

bool read_text(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  *out = s.str();
  return static_cast<bool>(f) || f.eof();
}

bool write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return false;
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// Writes DIR/timeline.json from DIR/timeline.bin. Two passes over the parts (one in memory at
// a time): the histograms, then the text.
bool render_timeline(const std::string& dir, uint64_t cap, TimelineSummary* sum, std::string* err) {
  const int64_t t0 = monotonic_raw_ns();
  const std::string bin = dir + "/timeline.bin";
  TimelineInfo stored;
  std::vector<uint64_t> hist(kTlHistSize, 0);
  std::vector<double> weight(kTimelineBins, 0.0);
  TimelineWindow bins;
  bool first = true;
  TimelineInfo info;
  if (!timeline_bin_read(bin, &stored,
                         [&](TimelinePart&& p) {
                           if (first) {
                             info = stored;
                             bins.bins = kTimelineBins;
                             bins.origin = stored.origin_ns;
                             bins.span = stored.span_ns > 0 ? stored.span_ns : 1;
                           }
                           const std::vector<uint64_t> h = timeline_histogram(p, stored, first);
                           for (size_t i = 0; i < h.size(); ++i) hist[i] += h[i];
                           add_path_weight(p, bins, &weight);
                           first = false;
                         },
                         err))
    return false;
  if (first) {
    *err = bin + " holds no rank";
    return false;
  }
  info.cap_bytes = cap ? cap : stored.cap_bytes;
  const TimelineWindow w = decide_timeline_window(hist, weight, &info);
  // Counted against what the run had, not against what the file kept of it.
  if (stored.capped || info.capped) {
    const uint64_t kept = info.slices_kept;
    info.slices_total = stored.slices_total;
    if (!info.capped) {  // everything the file holds fits: the run's own window stands
      info.capped = true;
      info.window_begin_ns = stored.window_begin_ns;
      info.window_end_ns = stored.window_end_ns;
      // The binary file keeps the whole path: if the run cut it to the window, it is whole now.
      TimelineWindow run = bins;
      run.all = false;
      run.lo = bins.bin_of(stored.window_begin_ns);
      run.hi = stored.window_end_ns > stored.window_begin_ns ? bins.bin_of(stored.window_end_ns - 1) : 0;
      if (run.hi < run.lo) run.lo = 1, run.hi = 0;
      info.note = timeline_cap_note(stored.cap_bytes, true, run, kept, info.slices_total, timeline_path_and_names_bytes(hist));
    } else {
      info.note = timeline_cap_note(info.cap_bytes, true, w, kept, info.slices_total, timeline_path_and_names_bytes(hist));
    }
  }

  const std::string path = dir + "/timeline.json", tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    *err = "cannot write " + tmp;
    return false;
  }
  bool ok = true;
  uint64_t size = 0;
  auto flush = [&](std::string_view b) {
    ok = ok && std::fwrite(b.data(), 1, b.size(), f) == b.size();
    size += b.size();
  };
  std::string buf = timeline_json_header(info);
  first = true;
  TimelineInfo again;
  if (!timeline_bin_read(bin, &again,
                         [&](TimelinePart&& p) {
                           timeline_json_part(p, info, w, first, &buf, size_t{4} << 20, flush);
                           first = false;
                         },
                         err)) {
    std::fclose(f);
    std::remove(tmp.c_str());
    return false;
  }
  buf += timeline_json_footer();
  flush(buf);
  ok = (std::fclose(f) == 0) && ok && std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    *err = "cannot write " + path;
    return false;
  }
  sum->written = true;
  sum->file = "timeline.json";
  sum->bytes = size;
  sum->cap_bytes = info.cap_bytes;
  sum->capped = info.capped;
  sum->window_begin_s = static_cast<double>(info.window_begin_ns - info.origin_ns) * 1e-9;
  sum->window_end_s = static_cast<double>(info.window_end_ns - info.origin_ns) * 1e-9;
  sum->slices_total = info.slices_total;
  sum->slices_kept = info.slices_kept;
  sum->write_s = static_cast<double>(monotonic_raw_ns() - t0) * 1e-9;
  sum->note = info.note;
  return true;
}

int usage() {
  std::fprintf(stderr,
               "usage: cpath-report [--timeline-max SIZE] [--no-timeline] DIR\n"
               "  renders DIR/report.html (from report.json) and DIR/timeline.json (from timeline.bin) again\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  uint64_t cap = 0;
  bool timeline = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--timeline-max" && i + 1 < argc) {
      if (!parse_size(argv[++i], &cap) || cap < (64u << 10)) {
        std::fprintf(stderr, "cpath-report: --timeline-max %s: expected a size of at least 64K such as 16M\n", argv[i]);
        return 2;
      }
    } else if (a == "--no-timeline") {
      timeline = false;
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else if (dir.empty()) {
      dir = a;
    } else {
      return usage();
    }
  }
  if (dir.empty()) return usage();

  std::string json;
  if (!read_text(dir + "/report.json", &json)) {
    std::fprintf(stderr, "cpath-report: cannot read %s/report.json\n", dir.c_str());
    return 1;
  }
  if (json.find("\"tool\": \"libcpath\"") == std::string::npos) {
    std::fprintf(stderr, "cpath-report: %s/report.json was not written by libcpath\n", dir.c_str());
    return 1;
  }
  std::string timeline_summary = "null";
  FILE* probe = timeline ? std::fopen((dir + "/timeline.bin").c_str(), "rb") : nullptr;
  if (probe) {
    std::fclose(probe);
    TimelineSummary s;
    std::string err;
    if (!render_timeline(dir, cap, &s, &err)) {
      std::fprintf(stderr, "cpath-report: timeline not written: %s\n", err.c_str());
      return 1;
    }
    timeline_summary = timeline_summary_json(s);
    std::printf("%s/timeline.json: %llu bytes, %llu of %llu slices%s%s\n", dir.c_str(),
                static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(s.slices_kept),
                static_cast<unsigned long long>(s.slices_total), s.note.empty() ? "" : "; ", s.note.c_str());
  } else if (timeline) {
    std::printf("%s: no timeline.bin (the run had timeline=0 or analysis=0): report.html only\n", dir.c_str());
  }
  if (!write_text(dir + "/report.html", report_html(json, timeline_summary))) {
    std::fprintf(stderr, "cpath-report: cannot write %s/report.html\n", dir.c_str());
    return 1;
  }
  std::printf("%s/report.html written\n", dir.c_str());
  return 0;
}
