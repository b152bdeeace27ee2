// The Program Activity Graph of one rank, implicitly (docs/pag-rules.md): vertices are the
// begin and end of each MPI call; the begin of a call has one edge to the end of the previous
// call of its thread (the compute in between, rule 1); the end of a call has one edge to the
// latest begin among its candidates that began before it ended — its own begin (or, after a
// polling loop, the wait start, rule 5), or a partner's (rules 3 and 4). Edges are computed on
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
  RankPag(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, int world_rank);
  // Edge out of the end vertex of event i.
  PagTarget end_edge(uint32_t i) const { return end_edge(i, nullptr, nullptr); }
  // The same, and when a partner wins: the op its candidate belongs to (kNoEvent for
  // MPI_Init's) and the time this call's waiting started (its begin, or the wait start of
  // rule 5). The wait-state analysis reads its instances from these edges. `poll` (optional)
  // receives the poll whose begin is the wait start, kNoEvent when the wait starts at the
  // begin, and `last` the loop's last poll before the partner began: the forward pass re-times
  // the wait from the first and counts the thread's own work from the last.
  PagTarget end_edge(uint32_t i, uint32_t* op, int64_t* wait_from, uint32_t* poll = nullptr,
                     uint32_t* last = nullptr) const;
  // The event whose end the begin vertex of event i leads to, or kNoEvent (start-up).
  uint32_t prev(uint32_t i) const { return tl_.prev[i]; }
  bool is_init(uint32_t i) const { return i == init_; }
  uint32_t finalize_event() const { return finalize_; }
  uint32_t init_event() const { return init_; }

 private:
  const Timeline& tl_;
  const OpTable& ops_;
  const PartnerTable& partners_;
  int me_;
  uint32_t init_ = kNoEvent;
  uint32_t finalize_ = kNoEvent;
};

// Rule 5, pure: the wait start of call c for op `op` against the winning partner begin `s`.
// The loop is the run of unsuccessful polls of that request (or probe key) by c's thread that
// ends at c: going back from c, a poll belongs to it while the thread computed at most
// kPollLoopGapNs between it and the loop's next poll (or c). A longer stretch of work is the
// program's own, not a polling loop's; the bound is well above a time slice, which a rank
// sharing its core can lose inside a chunk. The loop's first poll p starts the wait when some
// poll of the loop began before s and the thread computed no longer between q and c than
// s - p.begin, q being the loop's last poll that began before s (its work after the partner
// came would have been done in the partner's lateness); otherwise c's begin. The overshoot of a
// tight loop's last chunk thus does not decide. The loop also ends at the thread's last call
// that completed other requests: that call ended a wait of its own (a thread held elsewhere,
// in a blocking call that waited for its own partner, is one), and the thread went on to work
// on what it got. `poll` and `last` (optional) receive p and q when p starts the wait, else
// kNoEvent.
// `loop_gap`: that bound. A non-blocking collective's progress candidate (rule 4) is weaker
// evidence, and a loop that works between its polls (MPI_Test after each 1 ms chunk of work that
// is done whatever the test says) found the instance complete right after that member's call
// without waiting for it: for such a partner only polls with less than the progress gap
// (send_modes.h, kCollectiveProgressGapNs) of work between them form a loop.
constexpr int64_t kPollLoopGapNs = 50000000;
int64_t wait_start(const Timeline& tl, const OpTable& ops, uint32_t op, uint32_t c, int64_t s, uint32_t* poll = nullptr,
                   uint32_t* last = nullptr, int64_t loop_gap = kPollLoopGapNs);

}  // namespace cpath
