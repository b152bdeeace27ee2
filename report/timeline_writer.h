// The timeline as the writer sees it: each rank's MPI calls and the computation between them,
// its critical-path segments and the hand-offs where the path arrives from another rank, all
// already named. analysis/timeline_data.cpp builds it from the replay; the writer turns it
// into timeline.json (Chrome trace-event format, read by the Perfetto UI and chrome://tracing)
// and into timeline.bin, the compact copy cpath-report renders again after an upgrade.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cpath {

constexpr int32_t kTlNone = INT32_MIN;  // argument not present

// One MPI call. The computation between two calls of a thread is not stored: the writer draws
// it from the gap (a "compute" slice that goes wherever the call after it goes).
struct TlSlice {
  int64_t begin = 0, end = 0;  // ns on the aligned clock
  uint32_t thread = 0;
  uint32_t name = 0;  // strings[]: "MPI_Send"
  uint32_t site = 0;  // strings[]: call site "lu.f:212" (0: none)
  uint32_t comm = 0;  // strings[]: communicator "world", "c0.3", ... (0: none)
  int32_t peer = kTlNone, tag = kTlNone, peer2 = kTlNone, tag2 = kTlNone, root = kTlNone;  // world ranks
  int64_t bytes = -1;  // -1: none
};

enum class TlPathKind : uint8_t { Compute, Mpi, Startup };

struct TlPathSegment {  // one critical-path segment on this rank
  int64_t begin = 0, end = 0;
  TlPathKind kind = TlPathKind::Compute;
  uint32_t name = 0;      // strings[]: "compute", "MPI_Recv", "start-up"
  uint32_t activity = 0;  // strings[]: "compute between MPI_Recv at a.c:3 and MPI_Send at a.c:9"
};

struct TlArrival {  // the path comes onto this rank from `from_rank` at time t (a flow arrow)
  int32_t from_rank = -1;
  int64_t t = 0;
};

// A rank's slices in order: held (tests, small parts) or made on demand from what the analysis
// still holds. Holding one 64-byte slice per event beside the replay's timeline was the peak
// of a default run (halo_bench 100k: 184 bytes per event in the timeline's write, 172 before
// it); the writer reads them three or four times, each a pass in order.
class TlSlices {
 public:
  size_t size() const { return make_ ? n_ : held_.size(); }
  TlSlice operator[](size_t i) const { return make_ ? make_(i) : held_[i]; }
  void push_back(const TlSlice& s) { held_.push_back(s); }
  void reserve(size_t n) { held_.reserve(n); }
  void make(size_t n, std::function<TlSlice(size_t)> f) {
    std::vector<TlSlice>().swap(held_);
    n_ = n;
    make_ = std::move(f);
  }
  template <class F>
  void for_each(F&& f) const {
    const size_t n = size();
    for (size_t i = 0; i < n; ++i) f((*this)[i]);
  }

 private:
  std::vector<TlSlice> held_;
  size_t n_ = 0;
  std::function<TlSlice(size_t)> make_;
};

struct TimelinePart {  // one rank's share
  int32_t rank = 0;
  std::string host;
  std::vector<std::string> strings{""};
  std::vector<uint32_t> threads;       // thread indices that called MPI (one track each)
  TlSlices slices;                     // by begin time (each thread's calls in order)
  std::vector<TlPathSegment> path;     // by begin time
  std::vector<TlArrival> arrivals;     // by time
};

// Job-wide facts written once, at the top of the file.
struct TimelineInfo {
  int32_t ranks = 0;
  int64_t origin_ns = 0;  // aligned clock of ts = 0: the job's first MPI_Init entry
  int64_t span_ns = 0;    // first MPI_Init entry to the last MPI_Finalize entry
  uint64_t cap_bytes = 0;
  bool capped = false;
  int64_t window_begin_ns = 0, window_end_ns = 0;  // kept window (aligned clock) when capped
  uint64_t slices_total = 0, slices_kept = 0;
  std::string app;
  std::string note;  // what was left out and why
};

// Which slices a capped timeline keeps: those beginning in bins [lo, hi] of `bins` equal bins
// over [origin, origin + span]. Track names are always kept, and so is the whole critical path
// (its segments and arrivals) when it fits in the cap alone (path_all); else only its segments
// beginning, and its arrivals, in the window.
struct TimelineWindow {
  bool all = true;
  bool path_all = true;
  uint32_t bins = 1, lo = 0, hi = 0;
  int64_t origin = 0, span = 1;
  uint32_t bin_of(int64_t t) const;
  // By bin (the histograms, the offsets) and by time (the writer): one rule for both.
  bool keeps_bin(uint32_t b) const { return all || (b >= lo && b <= hi); }
  bool keeps_path_bin(uint32_t b) const { return path_all || (b >= lo && b <= hi); }
  bool keeps(const TlSlice& s) const { return all || keeps_bin(bin_of(s.begin)); }
  bool keeps_path(int64_t t) const { return path_all || keeps_path_bin(bin_of(t)); }
  // The first time in bin b (bin_of(bin_begin(b)) == b).
  int64_t bin_begin(uint32_t b) const {
    return origin + static_cast<int64_t>((static_cast<__int128>(span) * b + bins - 1) / bins);
  }
};

// --- timeline.json ---
// The file is: header, then every rank's events (rank 0 first, each event preceded by ",\n"
// except the first of rank 0), then the footer. Every piece's size is known before it is
// written, so ranks can write their parts at their own offsets in parallel.
std::string timeline_json_header(const TimelineInfo& info);
std::string timeline_json_footer();
// Appends one rank's events (the calls `w` keeps) to *out; hands what is written to flush and
// starts again whenever it grows past `chunk` bytes (bounded memory). `first`: no separator before the
// first event (rank 0). Returns the number of slices written.
uint64_t timeline_json_part(const TimelinePart& p, const TimelineInfo& info, const TimelineWindow& w, bool first,
                            std::string* out, size_t chunk, const std::function<void(std::string_view)>& flush);
// What each call costs in timeline.json, in order: its bytes and slice count (the call, and the
// computation before it on its thread when there is a gap).
void timeline_json_costs(const TimelinePart& p, const TimelineInfo& info,
                         const std::function<void(const TlSlice&, size_t bytes, unsigned slices)>& each);
// What each critical-path segment and arrival costs in timeline.json: its time (the segment's
// begin) and bytes, in the order written.
void timeline_json_path_costs(const TimelinePart& p, const TimelineInfo& info,
                              const std::function<void(int64_t t, size_t bytes)>& each);
// Bytes of the events kept whatever the cap (track names; on rank 0 of a capped timeline the
// window's marks).
size_t timeline_json_fixed_size(const TimelinePart& p, const TimelineInfo& info, bool first);

// --- timeline.bin ---
// Little-endian: magic "CPATHTL\0", u32 version, then sections: the header (TimelineInfo),
// then one block per rank (u64 length + varint-coded TimelinePart). docs/report.md.
std::vector<uint8_t> timeline_bin_header(const TimelineInfo& info);
std::vector<uint8_t> timeline_bin_part(const TimelinePart& p, const TimelineWindow& w);
// Reads a whole timeline.bin: the header and a callback per rank block (one part in memory at
// a time). False with *err set on a malformed file.
bool timeline_bin_read(const std::string& path, TimelineInfo* info,
                       const std::function<void(TimelinePart&&)>& each_part, std::string* err);

}  // namespace cpath
