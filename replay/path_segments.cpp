#include "path_segments.h"

namespace cpath {

namespace {

constexpr uint8_t kKindMask = 0x03;
constexpr uint8_t kPassed = 0x04;
constexpr uint8_t kContiguous = 0x08;  // ends where the record before began
constexpr uint8_t kPrevShift = 4;      // 0: no prev, 1: event - 1, 2: given
constexpr uint8_t kPrevNone = 0, kPrevBefore = 1, kPrevGiven = 2;

uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t unzigzag(uint64_t u) { return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1); }

void put(std::vector<uint8_t>& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<uint8_t>(v));
}
uint64_t get(const uint8_t*& p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t c = *p++;
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80) || shift >= 63) return v;
  }
}

using Record = PathSegments::Record;

Record read_record(const uint8_t* p) {
  const uint8_t* const from = p;
  Record r;
  r.flags = *p++;
  r.d_event = unzigzag(get(p));
  if (!(r.flags & kContiguous)) r.d_end = unzigzag(get(p));
  r.duration = unzigzag(get(p));
  if ((r.flags >> kPrevShift) == kPrevGiven) r.d_prev = unzigzag(get(p));
  r.length = static_cast<size_t>(p - from) + 1;
  return r;
}
Segment segment_of(const Record& r, uint32_t event, int64_t end) {
  Segment s;
  s.event = event;
  s.end = end;
  s.begin = end - r.duration;
  s.kind = static_cast<SegmentKind>(r.flags & kKindMask);
  s.passed = (r.flags & kPassed) != 0;
  const unsigned pm = r.flags >> kPrevShift;
  s.prev = pm == kPrevNone ? kNoSegmentPrev
           : pm == kPrevBefore ? event - 1
                               : static_cast<uint32_t>(static_cast<int64_t>(event) - r.d_prev);
  return s;
}

}  // namespace

void PathSegments::push_back(const Segment& s) {
  const size_t at = bytes_.size();
  const bool contiguous = s.end == last_begin_;
  const uint8_t pm = s.prev == kNoSegmentPrev ? kPrevNone : s.prev + 1 == s.event ? kPrevBefore : kPrevGiven;
  bytes_.push_back(static_cast<uint8_t>((static_cast<uint8_t>(s.kind) & kKindMask) | (s.passed ? kPassed : 0) |
                                        (contiguous ? kContiguous : 0) | (pm << kPrevShift)));
  put(bytes_, zigzag(static_cast<int64_t>(s.event) - static_cast<int64_t>(last_event_)));
  if (!contiguous) put(bytes_, zigzag(s.end - last_begin_));
  put(bytes_, zigzag(s.end - s.begin));
  if (pm == kPrevGiven) put(bytes_, zigzag(static_cast<int64_t>(s.event) - static_cast<int64_t>(s.prev)));
  bytes_.push_back(static_cast<uint8_t>(bytes_.size() - at + 1));  // at most 1 + 4 * 10 + 1 bytes
  last_event_ = s.event;
  last_begin_ = s.begin;
  ++count_;
}

std::vector<Segment> PathSegments::to_vector() const {
  std::vector<Segment> v;
  v.reserve(count_);
  for (const Segment& s : *this) v.push_back(s);
  return v;
}

PathSegments::const_iterator::const_iterator(const PathSegments* p, size_t pos, bool reverse)
    : p_(p), pos_(pos), reverse_(reverse) {
  if (reverse_) {
    ev_ = p_->last_event_;
    begin_ = p_->last_begin_;
  }
  decode();
}

void PathSegments::const_iterator::decode() {
  const std::vector<uint8_t>& b = p_->bytes_;
  if (!reverse_) {
    if (pos_ >= b.size()) return;
    rec_ = read_record(b.data() + pos_);
    const int64_t end = rec_.flags & kContiguous ? begin_ : begin_ + rec_.d_end;
    cur_ = segment_of(rec_, static_cast<uint32_t>(static_cast<int64_t>(ev_) + rec_.d_event), end);
    return;
  }
  if (pos_ == 0) return;
  rec_ = read_record(b.data() + pos_ - b[pos_ - 1]);
  cur_ = segment_of(rec_, ev_, begin_ + rec_.duration);
}

PathSegments::const_iterator& PathSegments::const_iterator::operator++() {
  if (!reverse_) {
    pos_ += rec_.length;
    ev_ = cur_.event;
    begin_ = cur_.begin;
  } else {
    // The record before: its event and begin from this one's values and differences.
    pos_ -= rec_.length;
    ev_ = static_cast<uint32_t>(static_cast<int64_t>(cur_.event) - rec_.d_event);
    begin_ = rec_.flags & kContiguous ? cur_.end : cur_.end - rec_.d_end;
  }
  decode();
  return *this;
}

}  // namespace cpath
