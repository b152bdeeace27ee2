// User regions and phases (include/cpath.h) on the critical path. Markers are not MPI calls
// and never PAG vertices: each thread's markers are kept apart from the timeline's events, and
// a path segment is attributed to the innermost region open on its thread at each moment (a
// segment that crosses a marker is split there). Phases are a second, flat dimension: the
// last phase marker of the thread names the time until the next one.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "critical_path_walk.h"
#include "timeline.h"
#include "tree_reduce.h"

namespace cpath {

struct Report;

class RegionMap {
 public:
  static constexpr uint32_t kNone = 0;  // name index meaning "no region" / "no phase"

  explicit RegionMap(const Timeline& tl);
  bool empty() const { return marks_ == 0; }

  // Calls f(state, begin, end) for the pieces of [b, e) on `thread` in time order; pieces of
  // zero length are skipped except the last, so every interval yields at least one call.
  template <class F>
  void split(uint32_t thread, int64_t b, int64_t e, F&& f) const {
    if (thread >= threads_.size() || threads_[thread].at.empty()) {
      f(0u, b, e);
      return;
    }
    const Thread& t = threads_[thread];
    size_t k = upper_index(t.at, b);
    uint32_t st = k ? t.state[k - 1] : 0u;
    int64_t x = b;
    for (; k < t.at.size() && t.at[k] < e; ++k) {
      if (t.at[k] > x) {
        f(st, x, t.at[k]);
        x = t.at[k];
      }
      st = t.state[k];
    }
    f(st, x, e);
  }

  uint32_t innermost(uint32_t state) const { return states_[state].region; }
  uint32_t phase(uint32_t state) const { return states_[state].phase; }
  // The distinct regions open in `state` (for inclusive times; recursion counted once).
  void open_regions(uint32_t state, std::vector<uint32_t>* out) const;
  const std::string& name(uint32_t index) const { return names_[index]; }
  uint64_t unmatched_ends() const { return unmatched_ends_; }
  // Sum over threads of the time each region was open (inclusive), by name index.
  std::vector<double> open_time_ns() const;

 private:
  struct Node {
    uint32_t parent = 0, region = kNone;  // the region stack as a tree; node 0: empty stack
  };
  struct State {
    uint32_t node = 0, region = kNone, phase = kNone;
  };
  struct Thread {
    std::vector<int64_t> at;      // aligned ns where the state changes
    std::vector<uint32_t> state;  // state from at[k] on (before at[0]: state 0)
  };
  static size_t upper_index(const std::vector<int64_t>& v, int64_t x);

  std::vector<std::string> names_{""};
  std::vector<Node> nodes_{Node()};
  std::vector<State> states_{State()};
  std::vector<Thread> threads_;
  int64_t end_ = 0;  // last time on the rank (regions still open are closed there)
  uint64_t marks_ = 0;
  uint64_t unmatched_ends_ = 0;
};

// One rank's path time by region and by phase.
struct RegionProfile {
  StringTable by_region;  // name -> {exclusive ns, compute ns, mpi ns, inclusive ns}; "" = outside any region
  StringTable by_phase;   // name -> {ns, compute ns, mpi ns}; "" = before the first phase marker
  StringTable open_time;  // name -> {time the region was open on this rank, ns}
  uint64_t unmatched_ends = 0;
  bool used = false;  // this rank recorded markers
};

RegionProfile profile_regions(const WalkResult& w, const Timeline& tl, const RegionMap& regions);

// Collective over `comm`: merges the ranks' profiles and, on rank 0, fills the report's region
// section. Does nothing (one allreduce) when no rank used regions.
void report_regions(RegionProfile& p, MPI_Comm comm, Report* rep);

}  // namespace cpath
