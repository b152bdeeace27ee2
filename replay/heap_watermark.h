// Memory growth of the finalize-time processing on this rank, as the system sees it: resident
// set size (RSS) above what the process held when finalize processing began, at its peak.
// Heap figures (mallinfo) miss trimmed arenas, stacks and what is freed between samples, and
// once (without mapped chunks) understated the real peak threefold; the report's
// memory_per_rank_max_bytes is this figure. The peak is the kernel's high-water mark (VmHWM)
// when the processing raised it, else the largest RSS seen at the sample points (the
// application's own earlier peak was higher). Without /proc, the glibc heap growth
// (mallinfo2) since construction stands in.
#pragma once
#include <malloc.h>

#include <algorithm>
#include <cstddef>

#include "process_memory.h"

namespace cpath {

class HeapWatermark {
 public:
  explicit HeapWatermark(ProcessMemory base = read_process_memory())
      : base_(base), rss_peak_(base.rss), heap_base_(heap()), heap_peak_(heap_base_) {}
  void sample() {
    heap_peak_ = std::max(heap_peak_, heap());
    rss_peak_ = std::max(rss_peak_, read_process_memory().rss);
  }
  // The glibc heap in use above the start, at its largest sample (mallinfo2 between steps,
  // mapped chunks included: a lower bound of each step's own peak): what the analysis took even
  // where it fit in pages the process already had (then growth() is 0).
  size_t heap_growth() const { return heap_peak_ > heap_base_ ? heap_peak_ - heap_base_ : 0; }
  size_t growth() const {
    const ProcessMemory now = read_process_memory();
    if (base_.rss == 0 || now.rss == 0) return heap_growth();
    size_t peak = std::max(rss_peak_, now.rss);
    if (now.hwm > base_.hwm) peak = std::max(peak, now.hwm);
    return peak > base_.rss ? peak - base_.rss : 0;
  }

 private:
  // In use: from the arenas and from chunks glibc mapped by themselves (large arrays).
  static size_t heap() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  }
  ProcessMemory base_;
  size_t rss_peak_, heap_base_, heap_peak_;
};

}  // namespace cpath
