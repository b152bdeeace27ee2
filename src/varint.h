// LEB128-style variable-length integers and zigzag mapping: the trace's only encoding.
// Shared by the per-call writer (hot path) and the offline decoder.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cpath {

inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Writes v at p and returns the byte after it. At most 10 bytes.
inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Reads a varint from [p, end). Returns false on truncation or overlong input.
inline bool get_varint(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (p >= end) return false;
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      out = v;
      return true;
    }
  }
  return false;
}

constexpr size_t kMaxVarintBytes = 10;

}  // namespace cpath
