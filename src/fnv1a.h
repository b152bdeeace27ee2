// FNV-1a of a string: the same value on every rank and in the reference (host names).
#pragma once
#include <cstdint>
#include <string_view>

namespace cpath {

inline uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace cpath
