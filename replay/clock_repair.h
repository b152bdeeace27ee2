// Clock-condition repair (docs/pag-rules.md, "Clocks"): after alignment, a receive may still
// end before its matched send began, or a collective member leave before the latest begin it
// waits for. A controlled logical clock (Scalasca's CLC, Becker, Rabenseifner, Wolf et al.
// 2009) moves the violating call's end forward and the rank's later calls with it, keeping
// every local interval: per call a begin shift beta and an end shift delta, the least
// fixpoint of
//   beta(c)  = delta(prev(c))            (0 at a thread's start or MPI_Init)
//   delta(c) = max(beta(c), max over c's constraints p of (p.b + beta(p) + lmin - c.e))
// computed in rounds: every rank sweeps its own timeline with the partner shifts of the
// previous round, then changed begins go to the ranks that wait on them (one sparse exchange;
// collectives are reduced again). The sequential reference (tools/cpath_reference.cpp)
// computes the same rounds in one process.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "ops.h"
#include "pag.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

constexpr int64_t kNoConstraint = INT64_MIN;

// One rank, one round: the pure rule. Calls in timeline order; prev[i] < i or kNoEvent.
// Constraints of call i: partner_begin[cons_begin[i] .. cons_begin[i+1]) (shifted begins,
// kNoConstraint entries ignored). need[i] is the largest (partner + lmin - e[i]), or
// kNoConstraint when c has none.
void clock_repair_pass(const std::vector<int64_t>& b, const std::vector<int64_t>& e,
                       const std::vector<uint32_t>& prev, const std::vector<uint32_t>& cons_begin,
                       const std::vector<int64_t>& partner_begin, int64_t lmin, std::vector<int64_t>* beta,
                       std::vector<int64_t>* delta, std::vector<int64_t>* need);

struct ClockRepairResult {
  // Job-wide on every rank (reduced).
  uint64_t violations = 0;  // calls violating a constraint on the aligned clock
  uint64_t repaired = 0;    // of those, satisfied after the repair
  uint64_t unrepaired = 0;  // calls still violating a constraint (round limit reached)
  uint64_t shifted = 0;     // calls whose end moved
  int64_t max_shift_ns = 0;
  int rounds = 0;
  bool converged = true;
  // This rank's shifts per timeline event (empty when nothing moved here).
  std::vector<int64_t> beta, delta;
  // Shift of a moment of this rank's aligned clock (PMU samples), from the last call c that
  // began at or before it: beta(c) inside c, delta(c) in the compute after c. `calls`: the
  // sample's thread's calls in timeline order (shifts differ between threads), or null for
  // any call of the rank.
  int64_t shift_at(const Timeline& tl, int64_t aligned_t, const std::vector<uint32_t>* calls = nullptr) const;
};

// Re-runs the collective replay (all = false) or both replays (all = true) on the timeline as
// it is now, into the partners given to repair_clock_conditions. Collective over the comm.
using ReplayAgain = std::function<void(bool all)>;

// Collective over `comm`. `partners` are the replays' results: a matched receive's or peek's
// partner is its send's posting call (the p2p replay's, whatever other candidates it has in
// `extra`), collective partners and MPI_Init's are the constraints of collectives. On return,
// tl's times and all partners are on the repaired clock.
ClockRepairResult repair_clock_conditions(Timeline& tl, const OpTable& ops, const RankPag& pag, PartnerTable* partners,
                                          int64_t lmin, int max_rounds, MPI_Comm comm, const ReplayAgain& replay_again);

}  // namespace cpath
