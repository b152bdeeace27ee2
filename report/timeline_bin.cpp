// timeline.bin: the timeline's data in a compact, versioned form (varints, times as deltas), so
// that cpath-report can write timeline.json again without the job. Layout in docs/report.md.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "timeline_writer.h"

namespace cpath {

namespace {

constexpr char kMagic[8] = {'C', 'P', 'A', 'T', 'H', 'T', 'L', '\0'};
constexpr uint32_t kVersion = 1;

// Written through a cursor into a buffer grown by doubling: one bounds check per value instead
// of a vector push per byte (the part holds a few bytes for each of the run's calls).
struct Out {
  std::vector<uint8_t> b;
  size_t n = 0;
  uint8_t* room(size_t k) {
    if (n + k > b.size()) b.resize(std::max(2 * b.size(), n + k + 4096));
    return b.data() + n;
  }
  void u(uint64_t v) {
    uint8_t* p = room(10);
    while (v >= 0x80) {
      *p++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    n = static_cast<size_t>(p - b.data());
  }
  void i(int64_t v) { u((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void byte(uint8_t v) {
    *room(1) = v;
    ++n;
  }
  void s(const std::string& v) {
    u(v.size());
    raw(v.data(), v.size());
  }
  void raw(const void* p, size_t k) {
    if (k) std::memcpy(room(k), p, k);
    n += k;
  }
  void u64le(uint64_t v) {
    for (int k = 0; k < 8; ++k) byte(static_cast<uint8_t>(v >> (8 * k)));
  }
  std::vector<uint8_t> take() {
    b.resize(n);
    return std::move(b);
  }
};

struct In {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;
  uint64_t u() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (p == end) break;
      const uint8_t c = *p++;
      v |= uint64_t{c & 0x7fu} << shift;
      if (!(c & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  int64_t i() {
    const uint64_t z = u();
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
  }
  std::string s() {
    const uint64_t n = u();
    if (n > static_cast<uint64_t>(end - p)) {
      ok = false;
      return "";
    }
    std::string r(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    return r;
  }
  // A count of items each at least `min_bytes` long: bounded by what is left.
  uint64_t count(size_t min_bytes) {
    const uint64_t n = u();
    if (n > static_cast<uint64_t>(end - p) / min_bytes) ok = false;
    return ok ? n : 0;
  }
};

// A part framed by its length: `o` was begun with 8 bytes kept for it (begin_framed).
void begin_framed(Out& o) { o.u64le(0); }
std::vector<uint8_t> framed(Out& o) {
  const uint64_t len = o.n - 8;
  for (int k = 0; k < 8; ++k) o.b[static_cast<size_t>(k)] = static_cast<uint8_t>(len >> (8 * k));
  return o.take();
}

enum : uint8_t { kPeer = 2, kTag = 4, kPeer2 = 8, kTag2 = 16, kRoot = 32, kBytes = 64 };

}  // namespace

std::vector<uint8_t> timeline_bin_header(const TimelineInfo& info) {
  Out o;
  begin_framed(o);
  o.i(info.ranks);
  o.i(info.origin_ns);
  o.i(info.span_ns);
  o.u(info.cap_bytes);
  o.u(info.capped);
  o.i(info.window_begin_ns);
  o.i(info.window_end_ns);
  o.u(info.slices_total);
  o.u(info.slices_kept);
  o.s(info.app);
  o.s(info.note);
  Out f;
  f.raw(kMagic, sizeof kMagic);
  for (int k = 0; k < 4; ++k) f.byte(static_cast<uint8_t>(kVersion >> (8 * k)));
  const std::vector<uint8_t> h = framed(o);
  f.raw(h.data(), h.size());
  return f.take();
}

std::vector<uint8_t> timeline_bin_part(const TimelinePart& p, const TimelineWindow& w) {
  Out o;
  begin_framed(o);
  o.i(p.rank);
  o.s(p.host);
  o.u(p.strings.size());
  for (const std::string& s : p.strings) o.s(s);
  o.u(p.threads.size());
  for (uint32_t t : p.threads) o.u(t);
  uint64_t kept = w.all ? p.slices.size() : 0;
  if (!w.all) p.slices.for_each([&](const TlSlice& s) { kept += w.keeps(s); });
  o.u(kept);
  int64_t prev = 0;
  p.slices.for_each([&](const TlSlice& s) {
    if (!w.keeps(s)) return;
    o.i(s.begin - prev);
    prev = s.begin;
    o.u(static_cast<uint64_t>(s.end - s.begin));
    o.u(s.thread);
    o.u(s.name);
    o.u(s.site);
    o.u(s.comm);
    const uint8_t flags = (s.peer != kTlNone ? kPeer : 0) | (s.tag != kTlNone ? kTag : 0) |
                          (s.peer2 != kTlNone ? kPeer2 : 0) | (s.tag2 != kTlNone ? kTag2 : 0) |
                          (s.root != kTlNone ? kRoot : 0) | (s.bytes >= 0 ? kBytes : 0);
    o.byte(flags);
    if (flags & kPeer) o.i(s.peer);
    if (flags & kTag) o.i(s.tag);
    if (flags & kPeer2) o.i(s.peer2);
    if (flags & kTag2) o.i(s.tag2);
    if (flags & kRoot) o.i(s.root);
    if (flags & kBytes) o.u(static_cast<uint64_t>(s.bytes));
  });
  o.u(p.path.size());
  prev = 0;
  for (const TlPathSegment& s : p.path) {
    o.i(s.begin - prev);
    prev = s.begin;
    o.u(static_cast<uint64_t>(s.end - s.begin));
    o.u(static_cast<uint8_t>(s.kind));
    o.u(s.name);
    o.u(s.activity);
  }
  o.u(p.arrivals.size());
  prev = 0;
  for (const TlArrival& a : p.arrivals) {
    o.i(a.from_rank);
    o.i(a.t - prev);
    prev = a.t;
  }
  return framed(o);
}

namespace {

bool decode_part(In& in, TimelinePart* p) {
  p->rank = static_cast<int32_t>(in.i());
  p->host = in.s();
  p->strings.resize(in.count(1));
  for (std::string& s : p->strings) s = in.s();
  if (p->strings.empty()) p->strings.push_back("");
  const uint32_t nstr = static_cast<uint32_t>(p->strings.size());
  auto str = [&](uint64_t v) -> uint32_t {
    if (v >= nstr) in.ok = false;
    return v < nstr ? static_cast<uint32_t>(v) : 0;
  };
  p->threads.resize(in.count(1));
  for (uint32_t& t : p->threads) t = static_cast<uint32_t>(in.u());
  const uint64_t nslices = in.count(7);
  p->slices.reserve(nslices);
  int64_t prev = 0;
  for (uint64_t k = 0; k < nslices; ++k) {
    TlSlice s;
    s.begin = prev + in.i();
    prev = s.begin;
    s.end = s.begin + static_cast<int64_t>(in.u());
    s.thread = static_cast<uint32_t>(in.u());
    s.name = str(in.u());
    s.site = str(in.u());
    s.comm = str(in.u());
    if (in.p == in.end) return false;
    const uint8_t flags = *in.p++;
    if (flags & kPeer) s.peer = static_cast<int32_t>(in.i());
    if (flags & kTag) s.tag = static_cast<int32_t>(in.i());
    if (flags & kPeer2) s.peer2 = static_cast<int32_t>(in.i());
    if (flags & kTag2) s.tag2 = static_cast<int32_t>(in.i());
    if (flags & kRoot) s.root = static_cast<int32_t>(in.i());
    if (flags & kBytes) s.bytes = static_cast<int64_t>(in.u());
    if (!in.ok) return false;
    p->slices.push_back(s);
  }
  p->path.resize(in.count(5));
  prev = 0;
  for (TlPathSegment& s : p->path) {
    s.begin = prev + in.i();
    prev = s.begin;
    s.end = s.begin + static_cast<int64_t>(in.u());
    const uint64_t k = in.u();
    if (k > 2) return false;
    s.kind = static_cast<TlPathKind>(k);
    s.name = str(in.u());
    s.activity = str(in.u());
  }
  p->arrivals.resize(in.count(2));
  prev = 0;
  for (TlArrival& a : p->arrivals) {
    a.from_rank = static_cast<int32_t>(in.i());
    a.t = prev + in.i();
    prev = a.t;
  }
  return in.ok && in.p == in.end;
}

bool read_block(FILE* f, std::vector<uint8_t>* buf, bool* eof) {
  uint8_t len[8];
  const size_t got = std::fread(len, 1, 8, f);
  if (got == 0) {
    *eof = true;
    return true;
  }
  if (got != 8) return false;
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= uint64_t{len[k]} << (8 * k);
  if (n > (uint64_t{1} << 40)) return false;
  buf->resize(static_cast<size_t>(n));
  return std::fread(buf->data(), 1, buf->size(), f) == buf->size();
}

}  // namespace

bool timeline_bin_read(const std::string& path, TimelineInfo* info, const std::function<void(TimelinePart&&)>& each_part,
                       std::string* err) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) {
    *err = "cannot open " + path;
    return false;
  }
  char magic[8];
  uint8_t ver[4];
  if (std::fread(magic, 1, 8, f.get()) != 8 || std::memcmp(magic, kMagic, 8) != 0 || std::fread(ver, 1, 4, f.get()) != 4) {
    *err = path + " is not a libcpath timeline.bin";
    return false;
  }
  const uint32_t version = ver[0] | ver[1] << 8 | ver[2] << 16 | static_cast<uint32_t>(ver[3]) << 24;
  if (version != kVersion) {
    *err = path + ": version " + std::to_string(version) + ", this tool reads version " + std::to_string(kVersion);
    return false;
  }
  std::vector<uint8_t> buf;
  bool eof = false;
  if (!read_block(f.get(), &buf, &eof) || eof) {
    *err = path + ": truncated header";
    return false;
  }
  In h{buf.data(), buf.data() + buf.size()};
  info->ranks = static_cast<int32_t>(h.i());
  info->origin_ns = h.i();
  info->span_ns = h.i();
  info->cap_bytes = h.u();
  info->capped = h.u() != 0;
  info->window_begin_ns = h.i();
  info->window_end_ns = h.i();
  info->slices_total = h.u();
  info->slices_kept = h.u();
  info->app = h.s();
  info->note = h.s();
  if (!h.ok) {
    *err = path + ": malformed header";
    return false;
  }
  for (int n = 0;; ++n) {
    if (!read_block(f.get(), &buf, &eof)) {
      *err = path + ": truncated block of rank part " + std::to_string(n);
      return false;
    }
    if (eof) return true;
    In in{buf.data(), buf.data() + buf.size()};
    TimelinePart p;
    if (!decode_part(in, &p)) {
      *err = path + ": malformed rank part " + std::to_string(n);
      return false;
    }
    each_part(std::move(p));
  }
}

}  // namespace cpath
