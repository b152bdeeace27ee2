// Aggregation of PMU samples by (function, module), over the whole run and
// inside time intervals tagged compute or MPI (e.g. the critical path), with
// a compact wire format so tables can be reduced across ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pmu/sample.h"

namespace cpath::pmu {

enum class IntervalKind : uint8_t { compute = 0, mpi = 1 };

// [t0, t1) in CLOCK_MONOTONIC_RAW nanoseconds, the clock of Sample::time_ns.
struct TimeInterval {
  uint64_t t0 = 0;
  uint64_t t1 = 0;
  IntervalKind kind = IntervalKind::compute;
  uint32_t label = 0;  // mpi intervals: index into aggregate_hotspots' labels (the MPI call)
  // mpi intervals: the thread in the call (Sample::tid), 0 when not known. The path is then in
  // that thread's call: another thread's samples at that time are not on it.
  uint32_t tid = 0;

  // Whether sample s lies on this interval: in its time and, inside an MPI call, in its thread.
  bool holds(const Sample& s) const {
    return s.time_ns >= t0 && s.time_ns < t1 && (kind != IntervalKind::mpi || tid == 0 || tid == s.tid);
  }
};

struct FunctionKey {
  std::string function;
  std::string module;
  // Set when the function is part of an MPI call wherever it runs (the tool's own wrapper of
  // that call): such samples count as inside that call even between its clock reads.
  std::string mpi_call{};
  // The tool's own code outside its wrappers (the record writer's slow paths, type sizes...):
  // it runs between a call's clock reads and the next call's, so by time it falls in a compute
  // interval, but it is the tool's per-call cost, not the application's work (counted as MPI).
  bool tool = false;
};

// Maps a sample address to its function; normally a Symbolizer lookup.
// Called once per distinct address.
using FunctionResolver = std::function<FunctionKey(uint64_t ip)>;

struct HotspotRow {
  std::string function;
  std::string module;
  uint64_t samples = 0;
  uint64_t cpu_ns = 0;  // sum of sample weights
  uint64_t cycles = 0;
  uint64_t instructions = 0;

  double cpu_s() const noexcept { return static_cast<double>(cpu_ns) * 1e-9; }
  // Cycles per instruction; 0 when instructions were not counted.
  double cpi() const noexcept {
    return instructions > 0 ? static_cast<double>(cycles) / static_cast<double>(instructions) : 0.0;
  }
};

class HotspotTable {
 public:
  // Whether the cycles / instructions columns mean anything (hardware
  // counters were sampled); when false those columns are 0 and absent.
  bool has_cycles = false;
  bool has_instructions = false;

  // Adds to the row of (function, module), creating it if needed.
  void add(const std::string& function, const std::string& module, uint64_t samples,
           uint64_t cpu_ns, uint64_t cycles, uint64_t instructions);
  // Sums `other` into this table. A column stays present only if both
  // tables have it (empty tables do not count), so a merged CPI never mixes
  // ranks with and without counters.
  void merge(const HotspotTable& other);

  const std::vector<HotspotRow>& rows() const noexcept { return rows_; }
  size_t size() const noexcept { return rows_.size(); }
  bool empty() const noexcept { return rows_.empty(); }
  uint64_t total_cpu_ns() const noexcept;
  // The n rows with the most CPU time (ties: more samples, then by name).
  std::vector<HotspotRow> top(size_t n) const;

  // Compact binary form (varints, module names stored once). Deterministic
  // for a given row order. False only on allocation failure.
  bool serialise(std::vector<uint8_t>& out) const noexcept;
  // Replaces `out` with the table in [data, data+len). False (and `out`
  // untouched) if the bytes are not a complete, valid table.
  static bool deserialise(const uint8_t* data, size_t len, HotspotTable& out) noexcept;

 private:
  std::vector<HotspotRow> rows_;
  std::unordered_map<std::string, size_t> index_;  // function '\0' module -> row
};

// The four tables of one process (or, after merging, of many).
struct HotspotTables {
  HotspotTable all;      // every sample
  HotspotTable inside;   // samples inside any interval
  HotspotTable compute;  // inside compute intervals
  HotspotTable mpi;      // inside MPI intervals

  void merge(const HotspotTables& other);
  bool serialise(std::vector<uint8_t>& out) const noexcept;
  static bool deserialise(const uint8_t* data, size_t len, HotspotTables& out) noexcept;
};

// Aggregates samples by function. `intervals` should be sorted by t0 and
// non-overlapping (they are sorted here if not; with overlaps a sample
// counts in the latest-starting interval containing it). Samples of all
// threads are attributed by time; filter the vector first for one thread.
// With `labels`, the combined table (`inside`) shows a sample inside an MPI
// interval (or in a function whose key names an MPI call) as the call,
// "inside MPI_Send" (module "(MPI)"), while `mpi` keeps the function detail.
// Returns false only on allocation failure (tables then partial).
bool aggregate_hotspots(const std::vector<Sample>& samples, const std::vector<TimeInterval>& intervals,
                        const FunctionResolver& resolve, bool has_cycles, bool has_instructions,
                        HotspotTables& out, const std::vector<std::string>& labels = {}) noexcept;

}  // namespace cpath::pmu
