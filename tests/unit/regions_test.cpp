// User regions (include/cpath.h): the markers written by libcpath's entry points round-trip
// through the decoder without disturbing the MPI records around them, names are per thread,
// checked by content (a reused buffer), trimmed (Fortran) and truncated; corrupt region
// records are rejected. RegionMap replays a thread's markers into the innermost region and
// phase at each moment (nesting, an end closing what was left open inside, unmatched ends,
// markers placed between the thread's MPI calls), and profile_regions splits path segments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cpath.h"
#include "record_writer.h"
#include "regions.h"
#include "thread_state.h"
#include "trace_decoder.h"
#include "trace_store.h"

extern "C" {
void cpath_region_begin_(const char* name, size_t len);
void cpath_region_end_(const char* name, size_t len);
}

using namespace cpath;

namespace {

// Markers go into one hand-made chunk through the real entry points.
struct Recording {
  ThreadState ts;
  Chunk* chunk;
  Recording() {
    chunk = allocate_chunk(1 << 16);
    ts.head = ts.current = chunk;
    ts.pos = chunk->data();
    ts.end = chunk->data() + chunk->capacity;
    t_state = &ts;
    g_active.store(true);
    g_recording.store(true);
  }
  ~Recording() {
    g_recording.store(false);
    g_active.store(false);
    t_state = nullptr;
    ts.head = ts.current = nullptr;
    free_chunk(chunk);
  }
  DecodedThread decode() {
    DecodedThread d;
    TraceDecoder dec(0);
    EXPECT_TRUE(dec.decode(chunk->data(), ts.pos, &d)) << dec.error();
    return d;
  }
};

std::string name_of(const DecodedThread& d, const RegionMark& m) { return m.id ? d.region_names.at(m.id) : "(innermost)"; }

TEST(RegionRecord, MarkersRoundTripBetweenMpiRecords) {
  Recording r;
  cpath_phase("setup");
  cpath_region_begin("solve");
  const uint64_t t0 = ticks(), t1 = t0 + 1234;
  {
    RecordWriter w(&r.ts, kCall_MPI_Barrier, t0, t1, reinterpret_cast<void*>(0x4000), 0, 0);
    w.comm(MPI_COMM_WORLD);
    w.finish();
  }
  char buf[16] = "compute";
  cpath_region_begin(buf);
  std::strcpy(buf, "exchange");  // same address, another name
  cpath_region_begin(buf);
  cpath_region_end(nullptr);
  cpath_region_end("compute");
  cpath_region_begin_("halo      ", 10);  // Fortran: blank-padded
  cpath_region_end_("", 0);               // Fortran: empty = innermost
  cpath_region_begin("");
  const std::string longname(300, 'x');
  cpath_region_begin(longname.c_str());
  cpath_region_begin("solve");  // a name seen before: no new definition
  cpath_region_end("solve");

  const DecodedThread d = r.decode();
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].call, kCall_MPI_Barrier);
  EXPECT_EQ(d.events[0].t_begin, t0);  // the markers before it kept the time deltas right
  EXPECT_EQ(d.events[0].t_end, t1);
  EXPECT_EQ(d.events[0].callsite, 0x4000u);

  const std::vector<std::pair<RegionKind, std::string>> want = {
      {RegionKind::Phase, "setup"},       {RegionKind::Begin, "solve"},       {RegionKind::Begin, "compute"},
      {RegionKind::Begin, "exchange"},    {RegionKind::End, "(innermost)"},   {RegionKind::End, "compute"},
      {RegionKind::Begin, "halo"},        {RegionKind::End, "(innermost)"},   {RegionKind::Begin, "(unnamed)"},
      {RegionKind::Begin, std::string(kMaxRegionName, 'x')}, {RegionKind::Begin, "solve"}, {RegionKind::End, "solve"}};
  ASSERT_EQ(d.regions.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(d.regions[i].kind, want[i].first) << i;
    EXPECT_EQ(name_of(d, d.regions[i]), want[i].second) << i;
    EXPECT_EQ(d.regions[i].next_event, i < 2 ? 0u : 1u) << i;
  }
  // Marker times are the clock's, in order, and bracket the MPI record written between them.
  EXPECT_LE(d.regions[1].tick, t0);
  for (size_t i = 3; i < d.regions.size(); ++i) EXPECT_LE(d.regions[i - 1].tick, d.regions[i].tick);
  // One definition per distinct name: setup solve compute exchange halo (unnamed) xxx...
  EXPECT_EQ(d.region_names.size(), 8u);
  // A marker costs a few bytes.
  EXPECT_LT(r.ts.pos - r.chunk->data(), 400 + 300);
}

TEST(RegionRecord, RecordedOnlyBetweenInitAndFinalize) {
  Recording r;
  g_active.store(false);  // before MPI_Init or after MPI_Finalize
  cpath_region_begin("solve");
  EXPECT_EQ(r.ts.pos, r.chunk->data());
  g_active.store(true);
  g_recording.store(false);  // paused by MPI_Pcontrol(0): markers are still kept
  cpath_region_begin("solve");
  EXPECT_GT(r.ts.pos, r.chunk->data());
  r.ts.pos = r.chunk->data();
  g_recording.store(true);
  r.ts.busy = true;  // inside a wrapper (e.g. a reduction operator calling back): dropped
  cpath_region_begin("solve");
  EXPECT_EQ(r.ts.pos, r.chunk->data());
  r.ts.busy = false;
}

TEST(RegionRecord, CorruptRecordsAreRejected) {
  auto decode = [](std::vector<uint8_t> bytes) {
    DecodedThread d;
    TraceDecoder dec(0);
    return dec.decode(bytes.data(), bytes.data() + bytes.size(), &d);
  };
  EXPECT_TRUE(decode({4, 1, 1, 'a', 1, 2, 1}));  // name 1 = "a", begin at +1 of it
  EXPECT_FALSE(decode({1, 2, 1}));               // marker before its name
  EXPECT_FALSE(decode({3, 2, 0}));               // a phase needs a name
  EXPECT_FALSE(decode({5, 0, 0}));               // unknown kind
  EXPECT_FALSE(decode({4, 1, 9, 'a'}));          // name longer than the record
  EXPECT_FALSE(decode({2, 2}));                  // truncated
}

// A rank trace built by hand: ticks are nanoseconds (identity clock models).
struct Trace {
  RankTrace t;
  Event ev(uint32_t thread, CallId call, uint64_t b, uint64_t e) {
    Event x;
    x.thread = thread;
    x.call = call;
    x.t_begin = b;
    x.t_end = e;
    return x;
  }
  uint32_t name(DecodedThread& d, const std::string& s) {
    if (d.region_names.empty()) d.region_names.emplace_back();
    d.region_names.push_back(s);
    return static_cast<uint32_t>(d.region_names.size() - 1);
  }
  void mark(DecodedThread& d, uint32_t thread, RegionKind k, uint64_t at, uint32_t id) {
    RegionMark m;
    m.kind = k;
    m.tick = at;
    m.id = id;
    m.thread = thread;
    m.next_event = static_cast<uint32_t>(d.events.size());
    d.regions.push_back(m);
  }
};

struct Piece {
  std::string region, phase;
  int64_t b, e;
  bool operator==(const Piece& o) const { return region == o.region && phase == o.phase && b == o.b && e == o.e; }
};

std::ostream& operator<<(std::ostream& os, const Piece& p) {
  return os << "{" << p.region << "," << p.phase << "," << p.b << "," << p.e << "}";
}

std::vector<Piece> pieces(const RegionMap& m, uint32_t thread, int64_t b, int64_t e) {
  std::vector<Piece> out;
  m.split(thread, b, e, [&](uint32_t st, int64_t pb, int64_t pe) {
    out.push_back({m.name(m.innermost(st)), m.name(m.phase(st)), pb, pe});
  });
  return out;
}

class RegionMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DecodedThread t0, t1;
    const uint32_t a = tr.name(t0, "A"), b = tr.name(t0, "B"), p = tr.name(t0, "P"), x = tr.name(t0, "X"),
                   c = tr.name(t0, "C"), d = tr.name(t0, "D");
    t0.events.push_back(tr.ev(0, kCall_MPI_Init, 0, 10));
    tr.mark(t0, 0, RegionKind::Begin, 20, a);
    tr.mark(t0, 0, RegionKind::Begin, 30, b);
    tr.mark(t0, 0, RegionKind::Phase, 40, p);
    t0.events.push_back(tr.ev(0, kCall_MPI_Wait, 100, 110));
    tr.mark(t0, 0, RegionKind::End, 150, a);  // closes B, left open inside A
    tr.mark(t0, 0, RegionKind::End, 160, x);  // matches nothing
    t0.events.push_back(tr.ev(0, kCall_MPI_Wait, 200, 210));
    tr.mark(t0, 0, RegionKind::Begin, 220, c);
    tr.mark(t0, 0, RegionKind::Begin, 205, d);  // recorded inside the Wait's interval: placed after it
    tr.mark(t0, 0, RegionKind::End, 230, 0);    // closes D
    t0.events.push_back(tr.ev(0, kCall_MPI_Finalize, 300, 300));
    const uint32_t z = tr.name(t1, "Z");
    tr.mark(t1, 1, RegionKind::Begin, 50, z);
    tr.mark(t1, 1, RegionKind::End, 250, z);
    tr.t.threads.push_back(t0);
    tr.t.threads.push_back(t1);
    tl = build_timeline(tr.t);
  }
  Trace tr;
  Timeline tl;
};

TEST_F(RegionMapTest, InnermostRegionAndPhaseOverTime) {
  const RegionMap m(tl);
  ASSERT_FALSE(m.empty());
  const std::vector<Piece> want = {{"", "", 0, 20},     {"A", "", 20, 30},    {"B", "", 30, 40},
                                   {"B", "P", 40, 150}, {"", "P", 150, 220},  {"C", "P", 220, 220},
                                   {"D", "P", 220, 230}, {"C", "P", 230, 300}};
  // D was recorded at 205, inside the Wait [200, 210] and after C in the stream: it is kept in
  // stream order, after the Wait ends.
  std::vector<Piece> got = pieces(m, 0, 0, 300);
  got.erase(std::remove_if(got.begin(), got.end(), [](const Piece& p) { return p.b == p.e && p.e != 300; }), got.end());
  std::vector<Piece> want_nonempty;
  for (const Piece& p : want)
    if (p.b != p.e) want_nonempty.push_back(p);
  EXPECT_EQ(got, want_nonempty);
  EXPECT_EQ(m.unmatched_ends(), 1u);
  // Another thread's region never names this thread's time, and vice versa.
  EXPECT_EQ(pieces(m, 1, 40, 60), (std::vector<Piece>{{"", "", 40, 50}, {"Z", "", 50, 60}}));
  EXPECT_EQ(pieces(m, 7, 5, 9), (std::vector<Piece>{{"", "", 5, 9}}));  // a thread without markers
}

// The clock-condition repair moves a call and every later call of the rank forward on the
// timeline: markers move with the calls around them.
TEST_F(RegionMapTest, MarkersFollowEventsMovedOnTheTimeline) {
  for (TimelineEvent& te : tl.ev)
    if (te.begin >= 200) te.begin += 1000, te.end += 1000;
  const RegionMap m(tl);
  std::vector<Piece> got = pieces(m, 0, 0, 1300);
  got.erase(std::remove_if(got.begin(), got.end(), [](const Piece& p) { return p.b == p.e && p.e != 1300; }), got.end());
  EXPECT_EQ(got, (std::vector<Piece>{{"", "", 0, 20},
                                     {"A", "", 20, 30},
                                     {"B", "", 30, 40},
                                     {"B", "P", 40, 1150},
                                     {"", "P", 1150, 1220},
                                     {"D", "P", 1220, 1230},
                                     {"C", "P", 1230, 1300}}));
}

TEST_F(RegionMapTest, OpenTimeAndPathProfile) {
  const RegionMap m(tl);
  std::vector<double> open = m.open_time_ns();
  std::map<std::string, double> by_name;
  for (uint32_t i = 1; i < open.size(); ++i) by_name[m.name(i)] = open[i];
  EXPECT_EQ(by_name["A"], 130);
  EXPECT_EQ(by_name["B"], 120);
  EXPECT_EQ(by_name["C"], 80);  // open until the rank's last event
  EXPECT_EQ(by_name["D"], 10);
  EXPECT_EQ(by_name["Z"], 200);

  // A path over thread 0: compute [10,100) in the Wait's prologue, MPI [100,110), compute
  // [110,200), MPI [200,210), compute [210,300).
  WalkResult w;
  for (const Segment& s : {Segment{210, 300, 3, 2, SegmentKind::Compute}, Segment{200, 210, 2, kNoEvent, SegmentKind::Mpi},
                           Segment{110, 200, 2, 1, SegmentKind::Compute}, Segment{100, 110, 1, kNoEvent, SegmentKind::Mpi},
                           Segment{10, 100, 1, 0, SegmentKind::Compute}})
    w.path.push_back(s);
  RegionProfile p = profile_regions(w, tl, m);
  EXPECT_TRUE(p.used);
  auto row = [&](const std::string& n) { return p.by_region.count(n) ? p.by_region[n] : std::vector<double>(4, -1); };
  // {exclusive, compute, MPI, inclusive}
  EXPECT_EQ(row("A"), (std::vector<double>{10, 10, 0, 130}));   // [20,30); with B: [20,150)
  EXPECT_EQ(row("B"), (std::vector<double>{120, 110, 10, 120}));  // [30,100) + MPI [100,110) + [110,150)
  EXPECT_EQ(row(""), (std::vector<double>{80, 70, 10, 0}));     // [10,20) + [150,200) + MPI [200,210) + [210,220)
  EXPECT_EQ(row("C"), (std::vector<double>{70, 70, 0, 80}));
  EXPECT_EQ(row("D"), (std::vector<double>{10, 10, 0, 10}));
  EXPECT_EQ(p.by_phase["P"][0], 260);  // from 40 on
  EXPECT_EQ(p.by_phase[""][0], 30);
}

}  // namespace
