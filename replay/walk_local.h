// The part of the walk on one rank (walk_local, critical_path_walk.h) as a template over the
// graph: the pointer-jumping walk instantiates it with the concrete final graph (the PAG, a
// re-timed run), whose reads then inline instead of going through WalkGraph's virtual calls,
// which were most of a re-timed walk's time per event.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "critical_path_walk.h"

namespace cpath {

// Counts what walk_local would append (for an exactly sized path: a growing vector holds its
// old and new storage at once, up to three times the path).
struct CountSink {
  size_t n = 0;
  size_t size() const { return n; }
  void push_back(const Segment&) { ++n; }
};

// The path's time [from, until) on j's thread, until = j's begin (or its end, if earlier), where
// the partner's edge began before j (a polling loop, rule 5): the thread polled and worked then,
// so that time is its calls (MPI) and the gaps between them (compute), latest first. Labelling
// all of it as j's MPI time put the loop's computation among the hotspots "inside MPI" (SNAP's
// sweep between its MPI_Testsome calls) and into the path's MPI share.
// A re-timed run can end a polling loop before its completing call's new begin (a partner
// that comes earlier ends the loop earlier, docs/what-if.md): the pieces stay below such a
// call's end, so that they never cover a stretch twice (SNAP's new paths were up to 0.3 ms
// longer than their run).
template <class G, class Sink>
void emit_passed(const G& g, uint32_t j, int64_t from, int64_t until, Sink* segments) {
  for (uint32_t k = j; until > from;) {
    const uint32_t p = g.prev(k);
    if (p == kNoEvent) {
      segments->push_back({from, until, k, kNoEvent, SegmentKind::Compute, true});
      return;
    }
    const int64_t pe = std::min(g.end(p), until);
    const int64_t cb = std::max(pe, from);
    if (cb < until) segments->push_back({cb, until, k, p, SegmentKind::Compute, true});
    if (pe <= from) return;
    const int64_t pb = std::max(g.begin(p), from);
    if (pb < pe) segments->push_back({pb, pe, p, kNoEvent, SegmentKind::Mpi, true});
    until = std::min(pb, pe);
    k = p;
  }
}

template <class G, class Sink>
LocalWalkEnd walk_local_into(const G& g, int me, uint32_t event, int64_t job_begin, uint64_t& steps,
                             uint64_t limit, Sink* segments, size_t pause_at) {
  uint32_t i = event;
  while (true) {
    if (segments->size() >= pause_at) return LocalWalkEnd{me, i, false, true};
    if (++steps > limit) return LocalWalkEnd{-1, 0, true};
    // At the begin vertex of i.
    const uint32_t j = g.prev(i);
    if (g.is_init(i) || j == kNoEvent) {
      const int64_t b = g.begin(i);
      if (b > job_begin) segments->push_back({job_begin, b, i, kNoEvent, SegmentKind::Startup});
      return LocalWalkEnd{};
    }
    const int64_t e = g.end(j);
    const int64_t b = g.begin(i);
    segments->push_back({std::min(e, b), b, i, j, SegmentKind::Compute});
    // At the end vertex of j.
    const PagTarget t = g.end_edge(j);
    const int64_t bj = g.begin(j);
    if (t.begin >= bj) {
      segments->push_back({t.begin, e, j, kNoEvent, SegmentKind::Mpi});
    } else {
      const int64_t top = std::max(t.begin, std::min(bj, e));
      segments->push_back({top, e, j, kNoEvent, SegmentKind::Mpi});
      emit_passed(g, j, t.begin, top, segments);
    }
    if (t.rank != me) return LocalWalkEnd{t.rank, t.event, false};
    if (t.event >= g.events()) return LocalWalkEnd{-1, 0, true};
    i = t.event;
  }
}

}  // namespace cpath
