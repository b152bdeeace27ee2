// FNV-1a of a string: the same value on every rank and in the reference (host names).
#pragma once
#include <cstdint>
#include <string_view>

namespace cpath {

constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

inline uint64_t fnv1a(std::string_view s) {
  uint64_t h = kFnv1aBasis;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// One 64-bit word folded into a running FNV-1a-style hash (a word per step, not a byte): for
// sequences of keys that every rank hashes alike.
inline uint64_t fnv1a_word(uint64_t h, uint64_t w) { return (h ^ w) * 0x100000001b3ull; }

}  // namespace cpath
