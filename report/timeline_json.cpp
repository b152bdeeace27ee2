// timeline.json: Chrome trace-event format. pid = rank; tid = rank * 4096 + 1 for the rank's
// critical-path track, rank * 4096 + 10 + n for its thread n (unique across processes, so no
// viewer can merge two ranks' threads). Times are microseconds from the job's first MPI_Init entry,
// written from integer nanoseconds (exact, no rounding).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <type_traits>
#include <string_view>
#include <cstdint>
#include <functional>
#include <utility>

#include "json_format.h"
#include "timeline_writer.h"

namespace cpath {

namespace {

constexpr int kPathTid = 1;
constexpr int kThreadTid0 = 10;
constexpr int kTidsPerRank = 4096;

int64_t tid_of(int32_t rank, int local) {
  return static_cast<int64_t>(rank) * kTidsPerRank + std::min(local, kTidsPerRank - 1);
}
int64_t thread_tid(int32_t rank, uint32_t thread) {
  return tid_of(rank, kThreadTid0 + static_cast<int>(std::min<uint32_t>(thread, kTidsPerRank)));
}

// Where text goes: a Text writing at a cursor, or a Count that only adds up the bytes, so the
// writer's first pass (the size of every call, for the window and the ranks' offsets) formats
// nothing. Both take literals by their array type, their length known without a strlen. A Text
// writes without bounds checks: each item first gets room for its longest form (Room).
struct Count {
  size_t n = 0;
  template <size_t N>
  Count& operator+=(const char (&)[N]) {
    n += N - 1;
    return *this;
  }
  Count& operator+=(std::string_view s) {
    n += s.size();
    return *this;
  }
  Count& operator+=(char) {
    ++n;
    return *this;
  }
  void append(const char* b, const char* e) { n += static_cast<size_t>(e - b); }
  void put_int(int64_t v) { n += digits(v); }
  // From the highest set bit, not by dividing: a slice has about ten numbers of up to 13
  // digits, and this pass runs over every slice of the rank.
  static size_t digits(int64_t v) {
    const uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const size_t sign = v < 0 ? 1 : 0;
    if (u < 10) return sign + 1;
    static constexpr uint64_t kPow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
        1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
        100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
        1000000000000000000ULL, 10000000000000000000ULL};
    // floor(log10(2) * bits) is the digit count or one less.
    const unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(u));
    const unsigned t = (bits * 1233u) >> 12;
    return sign + t + (u >= kPow10[t] ? 1 : 0);
  }
};

struct Text {
  char* p;
  template <size_t N>
  Text& operator+=(const char (&l)[N]) {
    std::memcpy(p, l, N - 1);
    p += N - 1;
    return *this;
  }
  Text& operator+=(std::string_view v) {
    std::memcpy(p, v.data(), v.size());
    p += v.size();
    return *this;
  }
  Text& operator+=(char c) {
    *p++ = c;
    return *this;
  }
  void append(const char* b, const char* e) {
    std::memcpy(p, b, static_cast<size_t>(e - b));
    p += e - b;
  }
  void put_int(int64_t v) { p = std::to_chars(p, p + 24, v).ptr; }
};

// The output string as a buffer Texts write into: `at` is the end of what is written; the
// string's size beyond it is room (zero-filled once when it grows).
class Room {
 public:
  // `chunk`: about how much is written between flushes, grown to at once.
  Room(std::string& s, size_t chunk) : s_(s), at_(s.size()), chunk_(std::min<size_t>(chunk, size_t{8} << 20)) {}
  // Room for `n` bytes: items are bounded (kItemRoom plus their strings).
  Text text(size_t n) {
    if (at_ + n > s_.size()) s_.resize(std::max({2 * s_.size(), at_ + n + 4096, chunk_ + 4096}));
    return Text{&s_[at_]};
  }
  void done(const Text& t) { at_ = static_cast<size_t>(t.p - s_.data()); }
  size_t size() const { return at_; }
  // Hands what is written to `flush` and starts again.
  // The string keeps its size: shrinking it zero-filled the whole chunk again at the next
  // text() (a memset per flush, 4 % of MPI_Finalize's instructions on halo_bench, 1 rank).
  template <class F>
  void flush(F&& f) {
    f(std::string_view(s_.data(), at_));
    at_ = 0;
  }
  void close() { s_.resize(at_); }

 private:
  std::string& s_;
  size_t at_, chunk_;
};

// The longest an item's fixed text can be (keys, punctuation, up to 20-digit numbers); its
// strings' lengths come on top.
constexpr size_t kItemRoom = 1024;  // at most ~500 (a compute slice and a call with every field)

template <class Out>
void put_int(Out& o, int64_t v) {
  if constexpr (std::is_same_v<Out, Count> || std::is_same_v<Out, Text>) {
    o.put_int(v);
  } else {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    o.append(b, r.ptr);
  }
}

// Nanoseconds as microseconds with three decimals.
template <class Out>
void put_us(Out& o, int64_t ns) {
  if (ns < 0) {
    o += '-';
    ns = -ns;
  }
  put_int(o, ns / 1000);
  const int frac = static_cast<int>(ns % 1000);
  o += '.';
  o += static_cast<char>('0' + frac / 100);
  o += static_cast<char>('0' + frac / 10 % 10);
  o += static_cast<char>('0' + frac % 10);
}

template <class Out>
void head(Out& o, bool& first, char ph, int32_t pid, int64_t tid) {
  if (!first) o += ",\n";
  first = false;
  o += "{\"ph\":\"";
  o += ph;
  o += "\",\"pid\":";
  put_int(o, pid);
  if (tid >= 0) {
    o += ",\"tid\":";
    put_int(o, tid);
  }
}

void meta(std::string& o, bool& first, int32_t pid, int64_t tid, const char* what, const std::string& key,
          const std::string& value_json) {
  head(o, first, 'M', pid, tid);
  o += ",\"name\":\"";
  o += what;
  o += "\",\"args\":{\"";
  o += key;
  o += "\":";
  o += value_json;
  o += "}}";
}

// A complete event's common part, up to its name (`quoted`: already a JSON string).
template <class Out>
void complete(Out& o, bool& first, int32_t pid, int64_t tid, int64_t begin, int64_t end, const std::string& quoted,
              const TimelineInfo& info) {
  head(o, first, 'X', pid, tid);
  o += ",\"ts\":";
  put_us(o, begin - info.origin_ns);
  o += ",\"dur\":";
  put_us(o, end - begin);
  o += ",\"name\":";
  o += quoted;
}

// The part's strings as JSON strings, quoted once: every call names a few of them, and quoting
// them per call was the writer's largest cost.
std::vector<std::string> quoted_strings(const TimelinePart& p) {
  std::vector<std::string> q;
  q.reserve(p.strings.size());
  for (const std::string& s : p.strings) q.push_back(json::q(s));
  return q;
}

// The end of each thread's previous call, so the computation before a call can be drawn.
class ThreadGaps {
 public:
  // Where the computation before `s` begins (s.begin: none); records s.
  int64_t before(const TlSlice& s) {
    for (auto& t : last_)
      if (t.first == s.thread) {
        const int64_t g = t.second < s.begin ? t.second : s.begin;
        t.second = std::max(t.second, s.end);
        return g;
      }
    last_.emplace_back(s.thread, s.end);
    return s.begin;
  }

 private:
  std::vector<std::pair<uint32_t, int64_t>> last_;  // a few threads per rank
};

// One call, after the computation before it; returns the number of slices written.
template <class Out>
unsigned slice_to(Out& o, bool& first, const TimelinePart& p, const std::vector<std::string>& qs,
                  const TimelineInfo& info, const TlSlice& s, int64_t gap) {
  static const std::string kCompute = "\"compute\"";
  const int64_t tid = thread_tid(p.rank, s.thread);
  if (gap < s.begin) {
    complete(o, first, p.rank, tid, gap, s.begin, kCompute, info);
    o += ",\"cat\":\"compute\"}";
  }
  complete(o, first, p.rank, tid, s.begin, s.end, qs[s.name], info);
  o += ",\"cat\":\"mpi\",\"args\":{";
  bool any = false;
  auto field = [&](const auto& k) {  // a literal: its length known
    o += any ? ",\"" : "\"";
    any = true;
    o += k;
    o += "\":";
  };
  auto rank_field = [&](const auto& k, int32_t v) {
    if (v == kTlNone) return;
    field(k);
    if (v >= 0) put_int(o, v);
    else o += v == -2 ? "\"MPI_PROC_NULL\"" : v == -1 ? "\"MPI_ANY_SOURCE\"" : v == -3 ? "\"MPI_ROOT\"" : "null";
  };
  rank_field("peer", s.peer);
  if (s.tag != kTlNone) {
    field("tag");
    put_int(o, s.tag);
  }
  rank_field("peer2", s.peer2);
  if (s.tag2 != kTlNone) {
    field("tag2");
    put_int(o, s.tag2);
  }
  rank_field("root", s.root);
  if (s.bytes >= 0) {
    field("bytes");
    put_int(o, s.bytes);
  }
  if (s.comm) {
    field("comm");
    o += qs[s.comm];
  }
  if (s.site) {
    field("site");
    o += qs[s.site];
  }
  o += "}}";
  return gap < s.begin ? 2 : 1;
}

// Track names (and rank 0's marks of a capped window): kept whatever the cap.
void names_to(std::string& o, bool& first, const TimelinePart& p, const TimelineInfo& info) {
  meta(o, first, p.rank, -1, "process_name", "name",
       json::q("rank " + std::to_string(p.rank) + (p.host.empty() ? "" : " (" + p.host + ")")));
  meta(o, first, p.rank, -1, "process_sort_index", "sort_index", std::to_string(p.rank));
  meta(o, first, p.rank, tid_of(p.rank, kPathTid), "thread_name", "name", "\"critical path\"");
  meta(o, first, p.rank, tid_of(p.rank, kPathTid), "thread_sort_index", "sort_index", "-1");
  for (uint32_t t : p.threads)
    meta(o, first, p.rank, thread_tid(p.rank, t), "thread_name", "name",
         json::q(t == 0 ? "thread 0 (main)" : "thread " + std::to_string(t)));
  if (p.rank == 0 && info.capped) {
    // Global instants: vertical lines across every track where the kept window starts and ends.
    for (int edge = 0; edge < 2; ++edge) {
      head(o, first, 'i', 0, tid_of(0, kPathTid));
      o += ",\"s\":\"g\",\"ts\":";
      put_us(o, (edge ? info.window_end_ns : info.window_begin_ns) - info.origin_ns);
      o += ",\"name\":";
      json::q_to(o, edge ? "timeline capped: kept window ends" : "timeline capped: kept window starts");
      o += ",\"args\":{\"note\":";
      json::q_to(o, info.note);
      o += "}}";
    }
  }
}

// One critical-path segment on the path track (nothing when it is empty: the path is
// contiguous without it).
template <class Out>
void segment_to(Out& o, bool& first, const TimelinePart& p, const std::vector<std::string>& qs,
                const TimelineInfo& info, const TlPathSegment& s) {
  static const char* const kinds[] = {"compute", "mpi", "startup"};
  static const char* const colours[] = {"good", "terrible", "grey"};  // chrome://tracing palette
  if (s.end <= s.begin) return;
  complete(o, first, p.rank, tid_of(p.rank, kPathTid), s.begin, s.end, qs[s.name], info);
  o += ",\"cat\":\"critical_path\",\"cname\":\"";
  o += colours[static_cast<int>(s.kind)];
  o += "\",\"args\":{\"kind\":\"";
  o += kinds[static_cast<int>(s.kind)];
  o += "\",\"activity\":";
  o += qs[s.activity];
  o += "}}";
}

// A flow arrow per hand-off: it starts 1 ns before the hand-off inside the sending rank's
// path slice and ends 1 ns after it inside this rank's ("bp":"e": bind to the enclosing slice).
template <class Out>
void arrival_to(Out& o, bool& first, const TimelinePart& p, const TimelineInfo& info, size_t k) {
  const TlArrival& a = p.arrivals[k];
  const int64_t id = (static_cast<int64_t>(p.rank) << 32) + static_cast<int64_t>(k);
  for (int end = 0; end < 2; ++end) {
    const int32_t pid = end ? p.rank : a.from_rank;
    head(o, first, end ? 'f' : 's', pid, tid_of(pid, kPathTid));
    if (end) o += ",\"bp\":\"e\"";
    o += ",\"id\":";
    put_int(o, id);
    o += ",\"ts\":";
    put_us(o, a.t - info.origin_ns + (end ? 1 : -1));
    o += ",\"name\":\"critical path\",\"cat\":\"critical_path\"}";
  }
}

}  // namespace

uint32_t TimelineWindow::bin_of(int64_t t) const {
  if (t <= origin || span <= 0) return 0;
  const int64_t d = t - origin;
  // 64-bit arithmetic while the product fits (runs up to ~100 days at 1000 bins): the same
  // quotient, without a 128-bit division per slice.
  const int64_t b = d <= INT64_MAX / static_cast<int64_t>(bins)
                        ? d * static_cast<int64_t>(bins) / span
                        : static_cast<int64_t>(static_cast<__int128>(d) * bins / span);
  return b >= static_cast<int64_t>(bins) ? bins - 1 : static_cast<uint32_t>(b);
}

std::string timeline_json_header(const TimelineInfo& info) {
  std::string o = "{\"otherData\":{\"tool\":\"libcpath\",\"app\":";
  json::q_to(o, info.app);
  o += ",\"ranks\":" + std::to_string(info.ranks);
  o += ",\"time_origin_ns\":" + std::to_string(info.origin_ns);
  o += ",\"span_s\":" + json::num(static_cast<double>(info.span_ns) * 1e-9);
  o += ",\"tracks\":\"pid = rank; tid = rank*4096+1: critical path, rank*4096+10+n: thread n\"";
  o += ",\"cap_bytes\":" + std::to_string(info.cap_bytes);
  o += std::string(",\"capped\":") + (info.capped ? "true" : "false");
  o += ",\"window_s\":[" + json::num(static_cast<double>(info.window_begin_ns - info.origin_ns) * 1e-9) + "," +
       json::num(static_cast<double>(info.window_end_ns - info.origin_ns) * 1e-9) + "]";
  o += ",\"window_ns\":[" + std::to_string(info.window_begin_ns - info.origin_ns) + "," +
       std::to_string(info.window_end_ns - info.origin_ns) + "]";
  o += ",\"slices_total\":" + std::to_string(info.slices_total);
  o += ",\"slices_kept\":" + std::to_string(info.slices_kept);
  o += ",\"note\":";
  json::q_to(o, info.note);
  o += "},\n\"traceEvents\":[\n";
  return o;
}

std::string timeline_json_footer() { return "\n]}\n"; }

uint64_t timeline_json_part(const TimelinePart& p, const TimelineInfo& info, const TimelineWindow& w, bool first,
                            std::string* out, size_t chunk, const std::function<void(std::string_view)>& flush) {
  const std::vector<std::string> qs = quoted_strings(p);
  names_to(*out, first, p, info);
  // The critical path can run to tens of MiB on one rank: it goes out in chunks like the calls.
  Room room(*out, chunk);
  auto spill = [&] {
    if (room.size() >= chunk) room.flush(flush);
  };
  for (const TlPathSegment& s : p.path) {
    if (!w.keeps_path(s.begin)) continue;
    Text o = room.text(kItemRoom + qs[s.name].size() + qs[s.activity].size());
    segment_to(o, first, p, qs, info, s);
    room.done(o);
    spill();
  }
  for (size_t k = 0; k < p.arrivals.size(); ++k) {
    if (!w.keeps_path(p.arrivals[k].t)) continue;
    Text o = room.text(kItemRoom);
    arrival_to(o, first, p, info, k);
    room.done(o);
    spill();
  }
  uint64_t n = 0;
  ThreadGaps gaps;
  p.slices.for_each([&](const TlSlice& s) {
    const int64_t gap = gaps.before(s);
    if (!w.keeps(s)) return;
    Text o = room.text(kItemRoom + qs[s.name].size() + qs[s.comm].size() + qs[s.site].size());
    n += slice_to(o, first, p, qs, info, s, gap);
    room.done(o);
    spill();
  });
  room.close();
  return n;
}

void timeline_json_costs(const TimelinePart& p, const TimelineInfo& info,
                         const std::function<void(const TlSlice&, size_t bytes, unsigned slices)>& each) {
  const std::vector<std::string> qs = quoted_strings(p);
  ThreadGaps gaps;
  p.slices.for_each([&](const TlSlice& s) {
    Count c;
    bool first = false;
    const unsigned n = slice_to(c, first, p, qs, info, s, gaps.before(s));
    each(s, c.n, n);
  });
}

void timeline_json_path_costs(const TimelinePart& p, const TimelineInfo& info,
                              const std::function<void(int64_t t, size_t bytes)>& each) {
  const std::vector<std::string> qs = quoted_strings(p);
  bool first = false;  // the track names always come before
  for (const TlPathSegment& s : p.path) {
    Count c;
    segment_to(c, first, p, qs, info, s);
    each(s.begin, c.n);
  }
  for (size_t k = 0; k < p.arrivals.size(); ++k) {
    Count c;
    arrival_to(c, first, p, info, k);
    each(p.arrivals[k].t, c.n);
  }
}

size_t timeline_json_fixed_size(const TimelinePart& p, const TimelineInfo& info, bool first) {
  std::string o;
  names_to(o, first, p, info);
  return o.size();
}

}  // namespace cpath
