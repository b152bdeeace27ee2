// The call paths a rank recorded with stack=N > 1 (call_path.h): with them, the trace's call
// site values are path numbers instead of return addresses. Path v (v >= 1) is frames
// [begin[v-1], begin[v]) innermost first; v = 0 is a call whose path did not fit in the table.
#pragma once
#include <cstdint>
#include <vector>

namespace cpath {

struct CallPaths {
  uint32_t depth = 0;              // the option stack=; 0: call sites are return addresses
  std::vector<uint32_t> begin{0};  // paths + 1 offsets into frames
  std::vector<uint64_t> frames;    // return addresses, innermost first

  bool active() const { return depth > 0; }
  uint32_t size() const { return static_cast<uint32_t>(begin.size() - 1); }
  // Frames of call site value `v`; {nullptr, 0} when v names no recorded path.
  const uint64_t* path(uint64_t v, uint32_t* n) const {
    if (v == 0 || v > size()) {
      *n = 0;
      return nullptr;
    }
    *n = begin[v] - begin[v - 1];
    return frames.data() + begin[v - 1];
  }
};

}  // namespace cpath
