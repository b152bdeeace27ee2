// Wall time of each step of the finalize-time processing on this rank, so the report can say
// where post-processing time goes (analysis.phases in report.json).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "clock.h"
#include "process_memory.h"
#include <cstdio>

namespace cpath {

class PhaseTimes {
 public:
  void start() {
    last_ = monotonic_raw_ns();
    phases_.clear();
  }
  // Charges the time since the previous mark to `name`.
  void mark(const char* name) {
    const int64_t now = monotonic_raw_ns();
    phases_.emplace_back(name, static_cast<double>(now - last_) * 1e-9);
    last_ = now;
    ProcessMemory m = read_process_memory(); if (getenv("PHMEM")) fprintf(stderr, "PHMEM %-32s rss %8zu hwm %8zu KiB\n", name, m.rss>>10, m.hwm>>10);
  }
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  int64_t last_ = 0;
  std::vector<std::pair<std::string, double>> phases_;
};

PhaseTimes& finalize_phases();

}  // namespace cpath
