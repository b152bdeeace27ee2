// What the critical-path walks need to know of one rank's PAG, and nothing more: event times,
// the begin edge (prev), the end edge, and where MPI_Init and MPI_Finalize are. The walks
// (critical_path_walk.h) run on this view, so the same code walks the real PAG (PagGraph) and
// the synthetic paths of bench/walk_bench.cpp and the unit tests.
#pragma once
#include <cstdint>

#include "pag.h"
#include "timeline.h"

namespace cpath {

class WalkGraph {
 public:
  virtual ~WalkGraph() = default;
  virtual uint32_t events() const = 0;
  virtual int64_t begin(uint32_t i) const = 0;
  virtual int64_t end(uint32_t i) const = 0;
  // The event whose end the begin vertex of i leads to, or kNoEvent (start-up).
  virtual uint32_t prev(uint32_t i) const = 0;
  virtual PagTarget end_edge(uint32_t i) const = 0;
  // Where the end edge leads, its begin left out (0 allowed): the pointer-jumping walk's
  // compression reads only that, for every event. A view whose begins cost more than a read
  // (the re-timed run's, recomputed between kept ones) answers it without them.
  virtual PagTarget end_target(uint32_t i) const { return end_edge(i); }
  virtual bool is_init(uint32_t i) const = 0;
  virtual uint32_t finalize_event() const = 0;
  virtual uint32_t init_event() const = 0;
};

// The real thing: a rank's PAG over its timeline.
class PagGraph final : public WalkGraph {
 public:
  PagGraph(const RankPag& pag, const Timeline& tl) : pag_(pag), tl_(tl) {}
  uint32_t events() const override { return static_cast<uint32_t>(tl_.ev.size()); }
  int64_t begin(uint32_t i) const override { return tl_.ev[i].begin; }
  int64_t end(uint32_t i) const override { return tl_.ev[i].end; }
  uint32_t prev(uint32_t i) const override { return pag_.prev(i); }
  PagTarget end_edge(uint32_t i) const override { return pag_.end_edge(i); }
  bool is_init(uint32_t i) const override { return pag_.is_init(i); }
  uint32_t finalize_event() const override { return pag_.finalize_event(); }
  uint32_t init_event() const override { return pag_.init_event(); }

 private:
  const RankPag& pag_;
  const Timeline& tl_;
};

}  // namespace cpath
