// The critical path of a re-timed run (docs/what-if.md, "The new critical path"): the forward
// pass (forward_pass.h, keep_run) leaves every event's new times and the end edge that bound
// each new end; this view walks them with the ordinary walk (critical_path_walk.h), so a
// scenario's new path follows exactly the dependencies that set its new times.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "critical_path_walk.h"
#include "forward_pass.h"
#include "walk_graph.h"

namespace cpath {

class RetimedGraph final : public WalkGraph {
 public:
  RetimedGraph(const Timeline& tl, const RetimedRun& run, int scenario) : tl_(tl), run_(run), s_(scenario) {}
  uint32_t events() const override { return static_cast<uint32_t>(tl_.ev.size()); }
  int64_t begin(uint32_t i) const override { return run_.begin_of(i, s_); }
  int64_t end(uint32_t i) const override { return run_.end_of(i, s_); }
  uint32_t prev(uint32_t i) const override { return tl_.prev[i]; }
  PagTarget end_edge(uint32_t i) const override {
    PagTarget t = end_target(i);
    t.begin = run_.edge_begin_of(i, s_);
    return t;
  }
  PagTarget end_target(uint32_t i) const override {
    const uint64_t v = run_.edge_of(i, s_);
    return PagTarget{static_cast<int32_t>(v >> 32), static_cast<uint32_t>(v), 0};
  }
  bool is_init(uint32_t i) const override { return i == run_.init; }
  uint32_t finalize_event() const override { return run_.finalize; }
  uint32_t init_event() const override { return run_.init; }

 private:
  const Timeline& tl_;
  const RetimedRun& run_;
  int s_;
};

// Collective over comm: scenario s's new critical path (segments on this rank, latest first).
inline WalkResult walk_retimed(const Timeline& tl, const RetimedRun& run, int s, MPI_Comm comm) {
  return walk_critical_path_jumping(RetimedGraph(tl, run, s), comm);
}

// Every scenario's new critical path (walk_critical_paths_jumping): take(s, path, last) for
// each scenario s in order, in pieces of about `chunk` segments. The walks go in groups of
// `group` that share their rounds: a group saves the rounds' latency of all but one walk, and
// holds a 4-byte table per event per walk until its rounds end. Before each group, go(count)
// (if given; collective, the same answer on every rank) says how many of its `count` walks to
// make: fewer end the walks after them.
inline void walk_retimed_all(const Timeline& tl, const RetimedRun& run, int group, MPI_Comm comm,
                             const std::function<void(int, WalkResult&, bool last)>& take, size_t chunk = SIZE_MAX,
                             const std::function<int(int count)>& go = nullptr) {
  std::vector<RetimedGraph> g;
  g.reserve(static_cast<size_t>(run.scenarios));
  for (int s = 0; s < run.scenarios; ++s) g.emplace_back(tl, run, s);
  group = std::max(1, group);
  for (int s0 = 0; s0 < run.scenarios; s0 += group) {
    const int full = std::min(run.scenarios, s0 + group) - s0;
    const int count = go ? std::max(0, std::min(full, go(full))) : full;
    if (count == 0) return;
    std::vector<const WalkGraph*> p;
    for (int s = s0; s < s0 + count; ++s) p.push_back(&g[static_cast<size_t>(s)]);
    walk_critical_paths_jumping(
        p, comm, [&](size_t s, WalkResult& w, bool last) { take(s0 + static_cast<int>(s), w, last); }, chunk);
    if (count < full) return;
  }
}

}  // namespace cpath
