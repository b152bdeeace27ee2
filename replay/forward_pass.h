// Forward re-timing of the recorded run on the Program Activity Graph (docs/what-if.md).
//
// Give it the replay's results and, per scenario, factors for every compute interval and every
// call's own MPI time; it returns each scenario's new end of the run. The what-if analysis
// (analysis/what_if.cpp) calls run_forward_pass. Several scenarios travel together in one pass
// (vectorised).
//
// Model (times on the repaired clock, docs/pag-rules.md): every thread keeps its calls in
// order; the begin of a call is the new end of its predecessor plus the scaled compute in
// between (start-up: the scaled distance from the job's first MPI_Init entry). The end of a
// call is
//     e'(c) = max(ready'(c), new begins of the partner candidates it waited for) + d(c) * mpi
//     d(c)  = e(c) - max(ready(c), the same candidates' measured begins)
// ready(c) is c's begin, or after a polling loop that rule 5 counts as waiting, the first
// poll's begin plus the thread's computation after the loop's last poll before the partner. Candidates: the matched send (and
// the sender's later call of rule 3) of a receive, the matched receive of
// a synchronous, rendezvous or held eager send (inline eager, buffered and ready sends wait for
// nobody), and for
// collectives every member the pattern waits for (all, root, lower ranks, in-neighbours), so
// the member that comes last may change with the scenario (a member that moves no data keeps
// its measured partner: rule 4). Point-to-point candidates that
// began after c ended did not delay c and are dropped (rule 2). No contention, no change of
// protocol, the same polls and the same matching as measured.
//
// Distributed: each rank re-times its own events in dependency order and sends a partner's
// new begin once it is known (a value per point-to-point dependency, several values to one rank
// in one message; a collective instance that waits for every member sends each member's begin
// to the others on a small communicator, and otherwise gathers them at its lowest-ranked
// member, which sends back what each member waits for). Blocking "all" instances of every rank
// that no dependency crosses cut the run into frames, re-timed at once and shifted into place
// at the end (docs/what-if.md, "Frames between world-wide collectives"). Needs a run without unrepaired clock-condition
// violations (then every dependency goes back in time and the pass cannot block).
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "ops.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

// Factors of every scenario for every event, as classes: compute[c * S + s] scales the compute
// interval before an event of class c (from the end of prev(i) to i's begin) in scenario s,
// mpi[c * S + s] the call's own MPI time d(i). Most events share their factors (same activity,
// same kind of call), so a row per class costs a few bytes per event where factors per event
// would cost 16 per scenario, and the pass reads them instead of computing them twice per event.
struct ForwardFactors {
  std::vector<uint32_t> of_event;  // class of each event; empty: every factor 1
  std::vector<double> compute, mpi;

  // Event i's S factors, or nullptr when they are all 1.
  const double* compute_row(uint32_t i, int S) const { return row(compute, i, S); }
  const double* mpi_row(uint32_t i, int S) const { return row(mpi, i, S); }

 private:
  const double* row(const std::vector<double>& v, uint32_t i, int S) const {
    return i < of_event.size() ? v.data() + static_cast<size_t>(of_event[i]) * static_cast<size_t>(S) : nullptr;
  }
};

struct ForwardInput {
  const Timeline* tl = nullptr;
  const OpTable* ops = nullptr;
  const PartnerTable* partners = nullptr;
  // From replay_collectives: per op, 1 when every member the op waits for recorded its
  // instance; entry ops.size() is MPI_Init's. Incomplete instances depend on the recorded
  // latest member only.
  const std::vector<uint8_t>* coll_complete = nullptr;
  int64_t job_begin = 0;           // earliest MPI_Init entry (WalkResult::job_begin)
  std::vector<double> startup;     // per scenario: factor of the start-up (1: as measured)
  ForwardFactors factors;
  // Keep the re-timed run (ForwardResult::run) so that each scenario's new critical path can
  // be walked (replay/retimed_walk.h). Every message then also carries who bound each value.
  bool keep_run = false;
  // Seconds without any message while events wait for one after which the pass gives up
  // (ForwardResult::stalled). A pass over a consistent graph never waits for a message that
  // does not come; one whose collective instances the ranks paired differently (MPI-4
  // persistent collectives started in different orders) can wait in a cycle.
  double stall_s = 30;
  // PMPI_Wtime() after which the pass gives up (ForwardResult::timed_out); every rank is given
  // the same budget from a common start, so they reach it within moments of each other.
  double deadline = HUGE_VAL;
  // Called once the pass has read ops, partners and coll_complete into its own tables (before
  // it allocates the re-timed run's): the owner may free them there.
  std::function<void()> release_pag;
};

// A duration scaled by a factor, rounded to the nanosecond (exactly d for 1), as the pass and
// the re-timed run's ends compute it.
inline int64_t scale_ns(int64_t d, double f) {
  if (f == 1.0) return d;
  // std::llround (half away from zero) without its library call, which the pass and the walks
  // make for every event and scenario: the truncation and the remainder are exact below 2^53,
  // and above it every double is an integer, so this is llround's value below 2^63.
  const double x = static_cast<double>(d) * f;
  int64_t i = static_cast<int64_t>(x);
  const double rest = x - static_cast<double>(i);
  if (rest >= 0.5) ++i;
  else if (rest <= -0.5) --i;
  return i;
}

// A new begin, as the pass computes it and RetimedRun::begin_of recomputes it: a thread's first
// call at the job's first MPI_Init entry plus its start-up scaled by `f` (retimed_first_begin),
// any other at its predecessor's new end plus the compute in between scaled by `cf`.
inline double startup_factor(const std::vector<double>& startup, int s) {
  return static_cast<size_t>(s) < startup.size() ? startup[static_cast<size_t>(s)] : 1.0;
}
inline int64_t retimed_first_begin(const Timeline& tl, uint32_t i, int64_t job_begin, double f) {
  return job_begin + scale_ns(tl.ev[i].begin - job_begin, f);
}
inline int64_t retimed_next_begin(const Timeline& tl, uint32_t i, int64_t prev_end, double cf) {
  return prev_end + scale_ns(tl.ev[i].begin - tl.ev[tl.prev[i]].end, cf);
}

// Packed (world rank << 32 | event): which begin vertex a re-timed end waited for.
inline uint64_t pack_vertex(int32_t rank, uint32_t event) { return (static_cast<uint64_t>(static_cast<uint32_t>(rank)) << 32) | event; }

// The re-timed run of this rank, event-major ([i * scenarios + s]): new begins and ends, and
// the end edge of every end vertex: the begin vertex that bound it (edge_of, pack_vertex) and
// that vertex's new begin (edge_begin_of). The own begin binds when the new ready (the begin, or
// after polling rule 5's re-timed wait start, the same that sets the new end) is not earlier than
// every dependency (ties: own begin, as in the PAG); among dependencies the latest wins, ties to
// the lowest (rank, event), so the reference can choose the same. Only events that wait for
// something or poll have a row (`row`) with their end edges, and only polling ones keep their
// new ends (`row_poll`); a waiting event ends at the later of its new begin and its edge's
// begin plus its own MPI time, scaled, any other at its new begin plus that.
//
// New begins are kept for every `stride`-th event of a chain (each event's predecessor is the
// one before it, as with one recording thread; with threads that overlap, each thread's events
// in order, flat_of): the others follow from the nearest kept begin before them, event by
// event, as the pass computed them (the end of the one before, from its row or its begin, plus
// the scaled compute in between). That keeps 8 bytes per scenario per `stride` events instead
// of per event.
struct RetimedRun {
  int scenarios = 0;
  int rank = 0;
  uint32_t stride = 1;                 // a power of two (the pass sets it)
  std::vector<int64_t> begin;          // [(g / stride) * scenarios + s], g = flat(i) a multiple of stride
  // Threads that overlap in the timeline: each thread's events, in order, from a multiple of
  // the stride (lanes one after another): event -> place (flat_of) and back (lane_events,
  // kNoEvent where a lane is padded). Empty when the events form chains: the place is i.
  std::vector<uint32_t> flat_of, lane_events;
  uint32_t flat(uint32_t i) const { return flat_of.empty() ? i : flat_of[i]; }
  std::vector<uint32_t> row;           // per event: its row, or kNoEvent
  std::vector<int64_t> edge_begin;     // [row * scenarios + s]
  // New ends are kept only for the rows of polling events (row_poll[row], else kNoEvent):
  // row_end[row_poll * scenarios + s]. Any other waiting event ends at its edge's begin (its own
  // new begin, or the later dependency's) plus its scaled MPI time.
  std::vector<uint32_t> row_poll;
  std::vector<int64_t> row_end;
  // The vertex that bound each row's end in each scenario, stored by how many distinct ones the
  // row's scenarios have: one or two for 96 % of rows or more (halo_bench, lu_wavefront,
  // cp_random_app: the own begin or the partner), where S vertices per row were 8 bytes per
  // scenario and waiting event. edge_at[row] is kind << kEdgeKindShift | the rest: kind 1 the
  // vertex itself; else an offset into edge_verts, kind 2 [v0, v1, then ceil(S / 64) words
  // whose bit s picks v1], kind 3 [S vertices] (also where that takes no more room than kind 2).
  // Kind 0: a row the pass has not finished (only in a pass that gave up).
  std::vector<uint64_t> edge_at, edge_verts;
  static constexpr int kEdgeKindShift = 62;
  static constexpr uint64_t kEdgeOffset = (uint64_t{1} << kEdgeKindShift) - 1;
  // Appends the S vertices w of one row to verts in that form and returns its edge_at word.
  static uint64_t pack_edges(const uint64_t* w, int S, std::vector<uint64_t>* verts);
  std::vector<int64_t> mpi_time;       // per event: its own MPI time as measured (d)
  // The pass's factors (ForwardInput::factors): they must outlive the run's readers.
  const ForwardFactors* factors = nullptr;
  uint32_t init = kNoEvent, finalize = kNoEvent;
  // What the begins between kept ones follow from.
  const Timeline* tl = nullptr;
  int64_t job_begin = 0;
  std::vector<double> startup;

  int64_t begin_of(uint32_t i, int s) const {
    assert(stride > 1 && (stride & (stride - 1)) == 0);
    const uint32_t g = flat(i);
    const uint32_t base = g & ~(stride - 1);  // a power of two: no division per read
    const Window& w = win_[0];
    if (base == w.base && s == w.s && g - base < w.filled) return w.b[g - base];  // inlined: most reads
    return begin_from_window(i, s);
  }

  int64_t end_of(uint32_t i, int s) const {
    const uint32_t r = row[i];
    // A polling event's end is kept: no begin to recompute.
    return r != kNoEvent && row_poll[r] != kNoEvent ? polled_end(r, s) : end_given_begin(i, s, begin_of(i, s));
  }

  uint64_t edge_of(uint32_t i, int s) const {
    const uint32_t r = row[i];
    if (r == kNoEvent) return pack_vertex(rank, i);
    const uint64_t a = edge_at[r];
    const uint64_t* v = edge_verts.data() + (a & kEdgeOffset);
    switch (a >> kEdgeKindShift) {
      case 1: return a & kEdgeOffset;
      case 2: return (v[2 + s / 64] >> (s % 64)) & 1 ? v[1] : v[0];
      case 3: return v[s];
      default: assert(false); return pack_vertex(rank, i);
    }
  }
  int64_t edge_begin_of(uint32_t i, int s) const {
    const uint32_t r = row[i];
    return r == kNoEvent ? begin_of(i, s) : edge_begin[static_cast<size_t>(r) * scenarios + s];
  }

 private:
  // The begins of events base .. base + filled - 1 in scenario s: a walk reads neighbouring
  // events, so one window serves many reads. A walk goes backwards and a piece of a new path on
  // one rank is a few events long, so a window is filled only as far as read (on halo_bench
  // the full windows cost the what-if's walks more than the rest of their work), and the
  // previous window is kept for the walk's steps back across the edge.
  struct Window {
    std::vector<int64_t> b;
    uint32_t base = kNoEvent;
    int s = -1;
    uint32_t filled = 0;
    void reset(uint32_t at, int scenario) {
      base = at;
      s = scenario;
      filled = 0;
    }
  };
  // Extends w to event w.base + off.
  void fill_window(Window& w, uint32_t off) const;
  // begin_of when the current window does not hold i yet.
  int64_t begin_from_window(uint32_t i, int s) const;
  // The new end of event i given its new begin b: for a waiting (not polling) event the later
  // of b and its edge's begin, for one without a row b, plus its own MPI time, scaled.
  int64_t end_given_begin(uint32_t i, int s, int64_t b) const {
    const uint32_t r = row[i];
    if (r != kNoEvent && row_poll[r] != kNoEvent) return polled_end(r, s);
    if (r != kNoEvent) b = std::max(b, edge_begin[static_cast<size_t>(r) * static_cast<size_t>(scenarios) + static_cast<size_t>(s)]);
    return end_from_begin(i, s, b);
  }
  int64_t polled_end(uint32_t r, int s) const {
    return row_end[static_cast<size_t>(row_poll[r]) * static_cast<size_t>(scenarios) + static_cast<size_t>(s)];
  }
  // The new end of an event without a row (nothing waited for): its begin plus its scaled MPI time.
  int64_t end_from_begin(uint32_t i, int s, int64_t b) const {
    const double* mf = factors ? factors->mpi_row(i, scenarios) : nullptr;
    return b + scale_ns(mpi_time[i], mf ? mf[s] : 1.0);
  }
  mutable Window win_[2];
};

struct ForwardResult {
  bool ok = false;
  std::vector<int64_t> end;        // per scenario, job-wide: the latest new MPI_Finalize begin
  std::vector<int32_t> end_rank;   // the rank holding it (ties: lowest)
  RetimedRun run;                  // with ForwardInput::keep_run
  // Some rank waited stall_s for a value that never came (a dependency cycle): ok is false on
  // every rank, and the pass ended without hanging the job.
  bool stalled = false;
  // Some rank reached ForwardInput::deadline first: ok is false on every rank.
  bool timed_out = false;
};

// Collective over comm (all ranks, same number of scenarios).
ForwardResult run_forward_pass(const ForwardInput& in, int scenarios, MPI_Comm comm);

}  // namespace cpath
