// The timeline writer (report/timeline_writer.h): exact JSON text and sizes (ranks write their
// parts at offsets computed from these sizes), the window a cap keeps, the timeline.bin round
// trip; and the HTML/text writers' small rules.
#include "timeline_writer.h"

#include <gtest/gtest.h>
#include <climits>
#include <cstdint>
#include <unistd.h>

#include <cstdio>

#include "report.h"
#include "timeline_window.h"

namespace cpath {
namespace {

TimelinePart sample_part(int rank) {
  TimelinePart p;
  p.rank = rank;
  p.host = "node\"1";
  p.strings = {"", "MPI_Send", "compute", "world", "a.c:10", "compute between X and Y", "MPI_Recv"};
  p.threads = {0};
  TlSlice s;
  s.begin = 1000 + 1234567;
  s.end = s.begin + 89;
  s.name = 1;
  s.site = 4;
  s.comm = 3;
  s.peer = 3;
  s.tag = 5;
  s.bytes = 960;
  p.slices.push_back(s);
  TlSlice r;  // 5 us of computation after the send: drawn from the gap
  r.begin = s.end + 5000;
  r.end = r.begin + 10;
  r.name = 6;
  r.peer = -2;  // MPI_PROC_NULL
  r.tag = -1;
  p.slices.push_back(r);
  p.path.push_back({1000 + 500, 1000 + 1234567, TlPathKind::Compute, 2, 5});
  p.path.push_back({1000 + 1234567, 1000 + 1234567 + 89, TlPathKind::Mpi, 1, 5});
  p.arrivals.push_back({2, 1000 + 500});
  return p;
}

TimelineInfo sample_info() {
  TimelineInfo i;
  i.ranks = 4;
  i.origin_ns = 1000;
  i.span_ns = 2000000;
  i.cap_bytes = 1 << 20;
  i.app = "app";
  return i;
}

TEST(TimelineJson, SlicesCarryExactTimesAndArguments) {
  const TimelinePart p = sample_part(1);
  const TimelineInfo info = sample_info();
  std::string out;
  TimelineWindow all;
  EXPECT_EQ(timeline_json_part(p, info, all, false, &out, 1 << 20, [](std::string_view) {}), 3u);
  EXPECT_NE(out.find("\"ph\":\"X\",\"pid\":1,\"tid\":4106,\"ts\":1234.567,\"dur\":0.089,\"name\":\"MPI_Send\",\"cat\":\"mpi\","
                     "\"args\":{\"peer\":3,\"tag\":5,\"bytes\":960,\"comm\":\"world\",\"site\":\"a.c:10\"}}"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"ts\":1234.656,\"dur\":5.000,\"name\":\"compute\",\"cat\":\"compute\"}"), std::string::npos) << out;
  EXPECT_NE(out.find("\"args\":{\"peer\":\"MPI_PROC_NULL\",\"tag\":-1}"), std::string::npos) << out;
  EXPECT_NE(out.find("\"name\":\"rank 1 (node\\\"1)\""), std::string::npos) << out;
  // Path slice on the path track, and the arrow from rank 2 binding 1 ns either side of the hand-off.
  EXPECT_NE(out.find("\"pid\":1,\"tid\":4097,\"ts\":0.500,\"dur\":1234.067,\"name\":\"compute\",\"cat\":\"critical_path\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("{\"ph\":\"s\",\"pid\":2,\"tid\":8193,\"id\":4294967296,\"ts\":0.499"), std::string::npos) << out;
  EXPECT_NE(out.find("{\"ph\":\"f\",\"pid\":1,\"tid\":4097,\"bp\":\"e\",\"id\":4294967296,\"ts\":0.501"), std::string::npos) << out;
  EXPECT_EQ(out.compare(0, 2, ",\n"), 0);  // not rank 0: every event after a separator
}

TEST(TimelineJson, SizesAreExactSoOffsetsAre) {
  const TimelinePart p = sample_part(0);
  TimelineInfo info = sample_info();
  for (bool capped : {false, true}) {
    info.capped = capped;
    info.note = capped ? "kept a window" : "";
    std::string out, flushed;
    TimelineWindow all;
    timeline_json_part(p, info, all, true, &out, 64, [&](std::string_view b) { flushed += b; });
    flushed += out;
    size_t want = timeline_json_fixed_size(p, info, true);
    timeline_json_path_costs(p, info, [&](int64_t, size_t bytes) { want += bytes; });
    unsigned slices = 0;
    timeline_json_costs(p, info, [&](const TlSlice&, size_t bytes, unsigned n) {
      want += bytes;
      slices += n;
    });
    EXPECT_EQ(slices, 3u);
    EXPECT_EQ(flushed.size(), want);
    EXPECT_EQ(flushed.compare(0, 7, "{\"ph\":\""), 0);  // rank 0 starts without a separator
    // The pieces make one document: header + parts + footer.
    const std::string doc = timeline_json_header(info) + flushed + timeline_json_footer();
    EXPECT_EQ(doc.compare(0, 14, "{\"otherData\":{"), 0);
    EXPECT_EQ(doc.substr(doc.size() - 4), "\n]}\n");
    EXPECT_EQ(doc.find("timeline capped") != std::string::npos, capped);
  }
}

// A long critical path goes out in chunks like the calls: one string of the whole path cost
// ~300 bytes per event of peak memory on halo_bench (timeline write step), more than the replay.
TEST(TimelineJson, LongPathIsWrittenInChunks) {
  TimelinePart p = sample_part(0);
  for (int k = 0; k < 2000; ++k) {
    const int64_t b = 2000000 + 100 * k;
    p.path.push_back({b, b + 50, TlPathKind::Compute, 2, 5});
    p.arrivals.push_back({1, b});
  }
  const TimelineInfo info = sample_info();
  TimelineWindow all;
  std::string whole, out, pieces;
  timeline_json_part(p, info, all, true, &whole, size_t{1} << 30, [](std::string_view) { FAIL() << "flushed"; });
  size_t largest = 0;
  timeline_json_part(p, info, all, true, &out, 4096, [&](std::string_view b) {
    largest = std::max(largest, b.size());
    pieces += b;
  });
  pieces += out;
  EXPECT_EQ(pieces, whole);
  EXPECT_GT(whole.size(), size_t{200000});
  EXPECT_LT(largest, size_t{4096 + 1024});  // one segment or arrow past the chunk at most
  size_t want = timeline_json_fixed_size(p, info, true);
  timeline_json_path_costs(p, info, [&](int64_t, size_t bytes) { want += bytes; });
  timeline_json_costs(p, info, [&](const TlSlice&, size_t bytes, unsigned) { want += bytes; });
  EXPECT_EQ(want, whole.size());
}

// The sizes pass counts digits, the writer formats them: they must agree to the byte for every
// value (each rank's offset in the file is the sum of the sizes before it), here at the limits of
// every field, with every field present, on a slice after a long gap and on a large rank.
TEST(TimelineJson, SizesAgreeWithTheTextAtTheLimits) {
  for (int32_t rank : {0, 7, 999999, INT32_MAX / 4096}) {
    TimelinePart p = sample_part(rank);
    p.strings.push_back(std::string(3000, 'x') + "\"\n");  // a long name to escape
    const uint32_t long_name = static_cast<uint32_t>(p.strings.size() - 1);
    const int64_t values[] = {0, 1, 9, 10, 99, 100, 999, 1000, 123456789, INT32_MAX, INT64_MAX / 4, -1, -9, -10};
    int64_t t = 3000000;
    for (int64_t v : values) {
      TlSlice s;
      s.begin = t;
      s.end = t + (v > 0 ? v % 1000000007 : 1);
      t = s.end + (v > 0 ? v % 999983 : 3);
      s.thread = static_cast<uint32_t>(v & 3);
      s.name = long_name;
      s.site = long_name;
      s.comm = 3;
      s.peer = static_cast<int32_t>(v > INT32_MAX ? INT32_MAX : v < -3 ? -3 : v);
      s.tag = static_cast<int32_t>(v > INT32_MAX ? INT32_MIN : v);
      s.peer2 = INT32_MAX;
      s.tag2 = INT32_MIN + 1;
      s.root = -3;
      s.bytes = v < 0 ? INT64_MAX : v;
      p.slices.push_back(s);
    }
    p.path.push_back({t, t + INT64_MAX / 8, TlPathKind::Mpi, long_name, long_name});
    p.arrivals.push_back({INT32_MAX / 4096, t});
    const TimelineInfo info = sample_info();
    TimelineWindow all;
    std::string out, pieces;
    timeline_json_part(p, info, all, rank == 0, &out, 512, [&](std::string_view b) { pieces += b; });
    pieces += out;
    size_t want = timeline_json_fixed_size(p, info, rank == 0);
    timeline_json_path_costs(p, info, [&](int64_t, size_t bytes) { want += bytes; });
    timeline_json_costs(p, info, [&](const TlSlice&, size_t bytes, unsigned) { want += bytes; });
    EXPECT_EQ(want, pieces.size()) << "rank " << rank;
    EXPECT_NE(pieces.find("\"bytes\":9223372036854775807"), std::string::npos);
    EXPECT_NE(pieces.find("\"tag2\":-2147483647"), std::string::npos);
  }
}

// A critical path larger than the cap is cut to the window like the calls (it was always kept
// whole: a 64 MiB cap gave a 205 MiB file on a run with a million hand-offs), and the sizes the
// ranks compute their offsets from stay exact.
TEST(TimelineWindow, PathLargerThanTheCapIsCutToTheWindow) {
  TimelinePart p = sample_part(0);
  p.path.clear();
  p.arrivals.clear();
  for (int k = 0; k < 4000; ++k) {  // a path segment every 500 ns over the 2 ms span
    const int64_t b = 1000 + 500 * k;
    p.path.push_back({b, b + 400, TlPathKind::Compute, 2, 5});
    if (k % 2) p.arrivals.push_back({1, b});
  }
  TimelineInfo info = sample_info();
  const std::vector<uint64_t> h = timeline_histogram(p, info, true);
  const uint64_t whole = timeline_path_and_names_bytes(h);
  ASSERT_GT(whole, uint64_t{400000});
  TimelineWindow bins;
  bins.bins = kTimelineBins;
  bins.origin = info.origin_ns;
  bins.span = info.span_ns;
  std::vector<double> weight;
  add_path_weight(p, bins, &weight);
  info.cap_bytes = 128 << 10;
  const TimelineWindow w = decide_timeline_window(h, weight, &info);
  EXPECT_TRUE(info.capped);
  EXPECT_FALSE(w.path_all);
  EXPECT_LE(w.lo, w.hi);
  EXPECT_NE(info.note.find("the critical path alone takes"), std::string::npos) << info.note;
  std::string out, doc;
  timeline_json_part(p, info, w, true, &out, 1 << 12, [&](std::string_view b) { doc += b; });
  doc += out;
  uint64_t want = timeline_json_fixed_size(p, info, true);
  for (uint32_t b = w.lo; b <= w.hi; ++b) want += h[b] + h[kTlHistPath + b];
  EXPECT_EQ(doc.size(), want);
  const std::string file = timeline_json_header(info) + doc + timeline_json_footer();
  EXPECT_LE(file.size(), info.cap_bytes);
  EXPECT_GT(file.size(), info.cap_bytes / 2);  // the window is as wide as the cap allows
  // A path that fits is kept whole, as before.
  info.cap_bytes = 4 << 20;
  info.capped = false;
  const TimelineWindow all = decide_timeline_window(h, weight, &info);
  EXPECT_TRUE(all.all && all.path_all);
}

// The last MPI_Finalize entry sits at origin + span exactly; a window that reaches the last bin
// must hold it (its end was bin_begin(bins) = origin + span, exclusive: report_timeline_cap
// failed under MPICH with the call "outside the window").
TEST(TimelineWindow, WindowReachingTheLastBinHoldsTheRunsLastInstant) {
  TimelineInfo info = sample_info();
  std::vector<uint64_t> h(kTlHistSize, 0);
  for (uint32_t b = 0; b < kTimelineBins; ++b) h[b] = 1000, h[kTlHistCounts + b] = 1;
  std::vector<double> weight(kTimelineBins, 0.0);
  weight[kTimelineBins - 1] = 9;
  info.cap_bytes = 64 << 10;
  const TimelineWindow w = decide_timeline_window(h, weight, &info);
  ASSERT_TRUE(info.capped);
  ASSERT_EQ(w.hi, kTimelineBins - 1);
  const int64_t last = info.origin_ns + info.span_ns;
  EXPECT_GT(info.window_end_ns, last);
  TlSlice s;
  s.begin = last;
  EXPECT_TRUE(w.keeps(s));
  EXPECT_LT(info.window_begin_ns, last);
}

TEST(TimelineWindow, KeepsEverythingThatFitsElseAroundTheHeaviestBin) {
  const std::vector<uint64_t> bytes = {10, 10, 10, 10, 10, 10};
  const std::vector<double> weight = {0, 1, 2, 9, 3, 0};
  TimelineWindow w = choose_timeline_window(bytes, weight, 60, 0, 600);
  EXPECT_TRUE(w.all);
  w = choose_timeline_window(bytes, weight, 35, 0, 600);
  EXPECT_FALSE(w.all);
  EXPECT_EQ(w.lo, 2u);  // 3 is heaviest; then 4 (weight 3) over 2 (weight 2); then 2
  EXPECT_EQ(w.hi, 4u);
  TlSlice s;
  s.begin = 250;  // bin 2
  EXPECT_TRUE(w.keeps(s));
  s.begin = 150;  // bin 1
  EXPECT_FALSE(w.keeps(s));
  s.begin = 599;
  EXPECT_FALSE(w.keeps(s));
  w = choose_timeline_window(bytes, weight, 5, 0, 600);  // not even one bin
  EXPECT_GT(w.lo, w.hi);
  s.begin = 350;
  EXPECT_FALSE(w.keeps(s));
}

TEST(TimelineWindow, StartupAndInitDoNotMakeThePathHeavy) {
  TimelinePart p;
  p.strings = {"", "start-up", "MPI_Init", "compute", "a"};
  p.path = {{0, 500, TlPathKind::Startup, 1, 4}, {500, 900, TlPathKind::Mpi, 2, 4}, {900, 1000, TlPathKind::Compute, 3, 4}};
  TimelineWindow bins;
  bins.bins = 10;
  bins.origin = 0;
  bins.span = 1000;
  std::vector<double> w;
  add_path_weight(p, bins, &w);
  for (int b = 0; b < 9; ++b) EXPECT_EQ(w[b], 0.0) << b;
  EXPECT_GT(w[9], 0.0);
}

TEST(TimelineBin, RoundTrip) {
  const TimelinePart p = sample_part(3);
  TimelineInfo info = sample_info();
  info.capped = true;
  info.note = "a note";
  info.slices_total = 7;
  info.slices_kept = 3;
  char path[] = "/tmp/cpath-tlbin-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> bytes = timeline_bin_header(info);
  TimelineWindow all;
  const std::vector<uint8_t> part = timeline_bin_part(p, all);
  bytes.insert(bytes.end(), part.begin(), part.end());
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  TimelineInfo got;
  std::vector<TimelinePart> parts;
  std::string err;
  ASSERT_TRUE(timeline_bin_read(path, &got, [&](TimelinePart&& q) { parts.push_back(std::move(q)); }, &err)) << err;
  EXPECT_EQ(got.ranks, 4);
  EXPECT_EQ(got.origin_ns, 1000);
  EXPECT_TRUE(got.capped);
  EXPECT_EQ(got.note, "a note");
  EXPECT_EQ(got.slices_total, 7u);
  ASSERT_EQ(parts.size(), 1u);
  // Same JSON from the copy as from the original: everything the writer uses came through.
  std::string a, b;
  timeline_json_part(p, info, all, false, &a, 1 << 20, [](std::string_view) {});
  timeline_json_part(parts[0], info, all, false, &b, 1 << 20, [](std::string_view) {});
  EXPECT_EQ(a, b);
  // A truncated file is an error, not a crash.
  ASSERT_EQ(truncate(path, static_cast<off_t>(bytes.size() - 3)), 0);
  EXPECT_FALSE(timeline_bin_read(path, &got, [](TimelinePart&&) {}, &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  unlink(path);
}

TEST(ReportHtml, DataCannotCloseItsScriptElement) {
  const std::string page = report_html("{\"app\": \"</script><b>x\"}", "{\"written\": false}");
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script>\\u003cb>x"), std::string::npos);
  EXPECT_EQ(page.find("@@REPORT_JSON@@"), std::string::npos);
  EXPECT_EQ(page.find("@@TIMELINE_JSON@@"), std::string::npos);
  EXPECT_NE(page.find("{\"written\": false}"), std::string::npos);
}

TEST(ReportText, NoDuplicateHotspotTableWithoutSamplesInsideMpi) {
  Report r;
  r.pmu_enabled = true;
  r.hot_path = {{"solve", "app", 1.0, std::nullopt, std::nullopt}};
  r.hot_path_compute = r.hot_path;
  std::string t = report_text(r);
  EXPECT_EQ(t.find("Hotspots on the critical path: compute"), std::string::npos) << t;
  r.hot_path_mpi = {{"__sched_yield", "libc.so.6", 0.5, std::nullopt, std::nullopt}};
  r.hot_path.push_back({"inside MPI_Send", "(MPI)", 0.5, std::nullopt, std::nullopt});
  t = report_text(r);
  EXPECT_NE(t.find("Hotspots on the critical path: compute"), std::string::npos);
  EXPECT_NE(t.find("inside MPI (libraries)"), std::string::npos);
}

}  // namespace
}  // namespace cpath
