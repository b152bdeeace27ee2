// Heap growth of the finalize-time analysis on this rank (glibc mallinfo2), sampled at the
// points where it holds the most: the figure behind "analysis memory per rank does not grow
// with the number of ranks".
#pragma once
#include <malloc.h>

#include <cstddef>

namespace cpath {

class HeapWatermark {
 public:
  HeapWatermark() : base_(in_use()), peak_(base_) {}
  void sample() {
    const size_t now = in_use();
    if (now > peak_) peak_ = now;
  }
  size_t growth() const { return peak_ > base_ ? peak_ - base_ : 0; }

 private:
  static size_t in_use() { return mallinfo2().uordblks; }
  size_t base_, peak_;
};

}  // namespace cpath
