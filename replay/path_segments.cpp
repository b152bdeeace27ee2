#include "path_segments.h"

namespace cpath {

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

}  // namespace cpath
