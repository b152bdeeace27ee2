// The Program Activity Graph of one rank, implicitly (seed 000, rules 1-5): vertices are the
// begin and end of each MPI call; the begin of a call has one edge to the end of the previous
// call on the rank (the compute in between); the end of a call has one edge to the latest
// begin among the related calls that began before it ended — its own begin, or a partner's
// (matching send/receive, the collective's latest or root entry). Edges are computed on
// demand from the replay's partners, so a rank holds only its own vertices.
#pragma once
#include <cstdint>
#include <vector>

#include "ops.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

struct PagTarget {
  int32_t rank = -1;  // world rank of the target begin vertex
  uint32_t event = 0;
  int64_t begin = 0;
};

class RankPag {
 public:
  RankPag(const Timeline& tl, const OpTable& ops, const std::vector<Partner>& partners, const Partner& init_partner,
          int world_rank);
  // Edge out of the end vertex of event i.
  PagTarget end_edge(uint32_t i) const;
  // The event whose end the begin vertex of event i leads to, or kNoEvent (start of the rank).
  uint32_t prev(uint32_t i) const;
  bool is_init(uint32_t i) const;
  uint32_t finalize_event() const { return finalize_; }
  uint32_t init_event() const { return init_; }

 private:
  const Timeline& tl_;
  const OpTable& ops_;
  const std::vector<Partner>& partners_;
  Partner init_partner_;
  int me_;
  uint32_t init_ = kNoEvent;
  uint32_t finalize_ = kNoEvent;
};

// The edge rule itself, shared by nothing else on purpose: the sequential reference
// (tools/cpath_reference.cpp) states it again in its own words.
// Ties between equal begins: the call's own begin first, then the lowest rank, then the
// lowest event, so every implementation picks the same edge.
inline bool pag_prefers(const PagTarget& cand, const PagTarget& best, int64_t end, int me, uint32_t own) {
  if (cand.rank < 0 || cand.begin >= end) return false;
  if (cand.begin != best.begin) return cand.begin > best.begin;
  if (best.rank == me && best.event == own) return false;
  if (cand.rank != best.rank) return cand.rank < best.rank;
  return cand.event < best.event;
}

}  // namespace cpath
