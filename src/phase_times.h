// Wall time, CPU time and resident-memory growth of each step of the finalize-time processing
// on this rank, so the report can say where post-processing time and memory go
// (analysis.phases, phase_cpu_s and phase_memory_bytes in report.json). CPU and wall differ
// when ranks share cores (wall is then about the CPU times the sharing), and the CPU includes
// the polls of the analysis's own waits.
#pragma once
#include <time.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "clock.h"
#include "process_memory.h"

namespace cpath {

class PhaseTimes {
 public:
  void start() {
    last_ = monotonic_raw_ns();
    last_cpu_ = process_cpu_ns();
    base_ = read_process_memory();
    last_hwm_ = base_.hwm;
    phases_.clear();
    cpu_.clear();
    memory_.clear();
  }
  // Charges the time since the previous mark to `name`, and the memory: the kernel's
  // high-water mark if the step raised it (the step's own peak), else the resident size at
  // its end, above the resident size when processing began.
  void mark(const char* name) {
    const int64_t now = monotonic_raw_ns();
    phases_.emplace_back(name, static_cast<double>(now - last_) * 1e-9);
    last_ = now;
    const int64_t cpu = process_cpu_ns();
    cpu_.push_back(static_cast<double>(cpu - last_cpu_) * 1e-9);
    last_cpu_ = cpu;
    const ProcessMemory m = read_process_memory();
    const size_t peak = m.hwm > last_hwm_ ? std::max(m.hwm, m.rss) : m.rss;
    last_hwm_ = std::max(last_hwm_, m.hwm);
    memory_.push_back(peak > base_.rss ? peak - base_.rss : 0);
  }
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  const std::vector<double>& cpu() const { return cpu_; }         // process CPU seconds, per phase
  const std::vector<size_t>& memory() const { return memory_; }  // bytes, per phase
  // Peak growth over the resident size at the end of phase `name` (0 if there is none).
  size_t growth_after(const std::string& name) const {
    size_t i = 0;
    while (i < phases_.size() && phases_[i].first != name) ++i;
    if (i == phases_.size()) return 0;
    const size_t at = memory_[i];
    const size_t peak = *std::max_element(memory_.begin() + static_cast<std::ptrdiff_t>(i), memory_.end());
    return peak - at;
  }

 private:
  static int64_t process_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  int64_t last_ = 0;
  int64_t last_cpu_ = 0;
  ProcessMemory base_;
  size_t last_hwm_ = 0;
  std::vector<std::pair<std::string, double>> phases_;
  std::vector<double> cpu_;
  std::vector<size_t> memory_;
};

PhaseTimes& finalize_phases();

}  // namespace cpath
