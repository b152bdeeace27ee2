// The Program Activity Graph as explicit edges and the walk along them (docs/pag-rules.md
// rules 1, 2, 5, 6 and 7). Every vertex has one outgoing edge, so the path is found by following
// edges from the begin of the latest MPI_Finalize until the start-up (a partial job: from the end
// of the call that ended last).
#include <algorithm>
#include <climits>

#include "ref.h"

namespace cpref {

namespace {

struct Target {
  int rank = -1;
  uint32_t call = kNone;
  int64_t b = 0;
};

// Rule 1 (and 6): the call whose end the begin of call c leads to; kNone: the start-up. On the
// aligned times, before the clock-condition repair (which keeps it).
uint32_t begin_edge(const Rank& r, uint32_t c, bool* unknown_start) {
  if (c == r.init) return kNone;
  const Call& k = r.calls[c];
  if (k.prev != kNone) return k.prev;
  if (r.init == kNone || k.thread == r.calls[r.init].thread) return kNone;
  // The first call of another thread: the latest call of the thread that created it that had
  // ended when it was created; without a recorded birth (created before MPI_Init), or with a
  // creator that had made no call by then, the MPI_Init thread's, bounded by the birth if known,
  // else by the first call's begin.
  uint32_t from = r.calls[r.init].thread;
  int64_t bound = k.b;
  for (const Rank::Birth& b : r.births) {
    if (b.thread != k.ev->thread) continue;
    bound = std::min(bound, b.at);
    for (uint32_t j = 0; j < c; ++j)
      if (b.creator >= 0 && r.calls[j].ev->thread == static_cast<uint32_t>(b.creator)) from = r.calls[j].thread;
  }
  uint32_t best = kNone;
  bool later = false;
  for (uint32_t j = 0; j < r.calls.size(); ++j) {
    if (r.calls[j].thread != from) continue;
    if (r.calls[j].e <= bound) best = j;
    else if (r.calls[j].e <= k.b) later = true;
  }
  // The creator called MPI between the birth and this call: the thread may have waited for
  // one of those calls outside MPI, which the trace does not show (rule 9).
  *unknown_start = bound < k.b && later;
  return best;
}

// Rule 5: the most work a polling loop does between two of its polls (ns).
constexpr int64_t kPollLoopGap = 50000000;

// The thread's computation between the end of call a and the begin of call b (a before b, one
// thread): its time outside MPI calls, other MPI calls in between excluded.
// Rule 5's computation: the thread's time outside MPI, less its time off the CPU before polls.
int64_t computation_between(const Rank& r, uint32_t a, uint32_t b) { return r.calls[b].work_before - r.calls[a].work_before; }

}  // namespace

uint32_t wait_poll(const Rank& r, uint32_t op, uint32_t c, int64_t s, uint32_t* last, bool progress) {
  // Against a non-blocking collective's progress candidate (rule 4) only polls with under 100 us
  // of work between them form a loop: a loop working in chunks between its tests did its own work.
  const int64_t gap = progress ? kProgressGap : kPollLoopGap;
  *last = kNone;
  if (op == kNone) return kNone;
  const Op& o = r.ops[op];
  // The loop ending at c: its polls, going back from c while the thread did at most 50 ms of
  // its own work between one and the next (or c), and after the thread's last call that
  // completed other requests (that call ended a wait of its own, a blocking call held by a
  // partner of its own among them; the thread then worked on what it got).
  auto completed_since = [&](uint32_t x, uint32_t until) {
    for (uint32_t y = r.calls[until].prev; y != kNone && y >= x; y = r.calls[y].prev)
      if (!r.done_at[y].empty()) return true;
    return false;
  };
  std::vector<uint32_t> loop;
  uint32_t next = c;
  for (size_t i = o.polls.size(); i-- > 0;) {
    const uint32_t x = o.polls[i];
    if (x >= c) continue;
    if (computation_between(r, x, next) > gap || completed_since(x, next)) break;
    loop.push_back(x);
    next = x;
  }
  if (loop.empty()) return kNone;
  const uint32_t p = loop.back();
  // The loop's last poll before the partner began: the thread's work after it is what it did
  // once the partner had come; that must fit in the partner's lateness s - p.b.
  uint32_t q = kNone;
  for (uint32_t x : loop)
    if (r.calls[x].b < s) {
      q = x;
      break;
    }
  if (q == kNone) return kNone;
  const int64_t pb = r.calls[p].b;
  if (computation_between(r, q, c) > s - pb) return kNone;
  *last = q;
  return p;
}

// Rule 2 with rule 5: the begin vertex the end of call c leads to; *wait_from: where the
// waiting began when a partner wins (c's begin or the wait start).
static Target end_edge(const Job& job, int rk, uint32_t c, int64_t* wait_from = nullptr) {
  const Rank& r = job.ranks[static_cast<size_t>(rk)];
  const Call& k = r.calls[c];
  Target s;  // the latest partner candidate that began before c ended
  uint32_t s_op = kNone;  // the op it is a candidate of (kNone: MPI_Init)
  bool s_progress = false;  // ... a progress candidate (rule 4)
  Target f;  // the latest candidate that is no progress candidate
  uint32_t f_op = kNone;
  auto consider = [&](const CallRef& ref, uint32_t op, bool progress = false) {
    // Another thread of the same rank is a partner like another rank (a rank's messages to
    // itself between threads); the call itself never is.
    if (!ref.valid() || (ref.rank == rk && ref.call == c)) return;
    const int64_t b = job.ranks[static_cast<size_t>(ref.rank)].calls[ref.call].b;
    if (b >= k.e) return;
    auto beats = [&](const Target& t) {
      return t.rank < 0 || b > t.b || (b == t.b && (ref.rank < t.rank || (ref.rank == t.rank && ref.call < t.call)));
    };
    if (beats(s)) {
      s = Target{ref.rank, ref.call, b};
      s_op = op;
      s_progress = progress;
    }
    if (!progress && beats(f)) {
      f = Target{ref.rank, ref.call, b};
      f_op = op;
    }
  };
  if (c == r.init)
    for (size_t o = 0; o < job.ranks.size(); ++o)
      if (job.ranks[o].init != kNone) consider({static_cast<int32_t>(o), job.ranks[o].init}, kNone);
  for (uint32_t op : r.done_at[c]) {
    for (const CallRef& ref : r.ops[op].cands) consider(ref, op);
    consider(progress_candidate(job, rk, r.ops[op]), op, true);
  }
  const Target own{rk, c, k.b};
  if (s.rank < 0) return own;
  // Rule 5: the wait start w stands in for the own begin. The first poll p of the winning
  // candidate's op (by c's thread) starts the wait when it began before the partner and the
  // thread computed no longer after the partner came than the partner's lateness s - p.b.
  int64_t w = k.b;
  uint32_t q = kNone;
  const uint32_t p = wait_poll(r, s_op, c, s.b, &q, s_progress);
  if (p != kNone) w = r.calls[p].b;
  if (wait_from) *wait_from = w;
  if (s.b > w) return s;
  // A loop that did not wait for a progress candidate (only a tight loop does) may still have
  // waited for the latest other candidate (a member's post): rule 5 against that one.
  if (s_progress && f.rank >= 0) {
    int64_t wf = k.b;
    const uint32_t pf = wait_poll(r, f_op, c, f.b, &q, false);
    if (pf != kNone) wf = r.calls[pf].b;
    if (f.b > wf) {
      if (wait_from) *wait_from = wf;
      return f;
    }
  }
  return own;
}

PartnerEdge partner_edge(const Job& job, int rank, uint32_t call) {
  int64_t w = 0;
  const Target t = end_edge(job, rank, call, &w);
  // Its own begin, or a call of its own thread: nothing waited for (another thread is).
  const Rank& r = job.ranks[static_cast<size_t>(rank)];
  if (t.rank == rank && r.calls[t.call].thread == r.calls[call].thread) return PartnerEdge{};
  return PartnerEdge{{t.rank, t.call}, t.b, w};
}

// The thread's computation between call a and the next call k of its thread: the time between
// them, but before a poll with 1 ms or more of it, the CPU time its thread's clock showed
// (read at polls, DecodedThread::cpu: from the last read at or before a's end to the first at
// or after k's begin, both on the thread's own ticks) when that was under 10 ms.
int64_t thread_work(const Call& a, const Call& k) {
  const int64_t wall = std::max<int64_t>(0, k.b - a.e);
  if (wall < 1000000 || !(k.info().fields & (cpath::kField_flag | cpath::kField_polls)) || !k.th) return wall;
  const auto& cpu = k.th->cpu;
  // Reads in tick order: the first after a's end, and the first at or after k's begin.
  auto tick_less = [](const std::pair<uint64_t, uint64_t>& x, uint64_t t) { return x.first < t; };
  auto after_end = std::lower_bound(cpu.begin(), cpu.end(), a.ev->t_end + 1, tick_less);
  auto at_begin = std::lower_bound(cpu.begin(), cpu.end(), k.ev->t_begin, tick_less);
  if (after_end == cpu.begin() || at_begin == cpu.end()) return wall;
  const uint64_t from = std::prev(after_end)->second, to = at_begin->second;
  const int64_t ran = to >= from ? static_cast<int64_t>(to - from) : 0;
  // More than 10 ms on the CPU: work of its own, as long as it lasted.
  return ran < 10000000 ? std::min<int64_t>(wall, ran) : wall;
}

void link_begins(Job* job) {
  for (Rank& r : job->ranks)
    for (uint32_t c = 0; c < r.calls.size(); ++c) {
      Call& k = r.calls[c];
      bool unknown_start = false;
      k.from = begin_edge(r, c, &unknown_start);
      job->counts.thread_start += unknown_start;
      if (k.prev != kNone) {
        k.compute_before = r.calls[k.prev].compute_before + std::max<int64_t>(0, k.b - r.calls[k.prev].e);
        k.work_before = r.calls[k.prev].work_before + thread_work(r.calls[k.prev], k);
      }
    }
}

// The end vertex of call c entered from an edge that began at tb: c's MPI time, and where tb
// lies before c began (a polling loop), the thread's own calls and the work between them back
// to tb, each as what it was. Latest first, as the walk goes.
void push_end(const Job& job, int rk, uint32_t c, int64_t tb, std::vector<Segment>* path) {
  const Rank& r = job.ranks[static_cast<size_t>(rk)];
  path->push_back({rk, "mpi", std::max(tb, r.calls[c].b), r.calls[c].e, c});
  passed_pieces(
      r, c, tb, r.calls[c].b, [&](uint32_t k) { return r.calls[k].b; }, [&](uint32_t k) { return r.calls[k].e; },
      [&](const char* kind, int64_t b, int64_t e, uint32_t call, uint32_t) { path->push_back({rk, kind, b, e, call, true}); });
}

std::vector<Segment> walk_path(const Job& job, bool* truncated) {
  *truncated = false;
  std::vector<Segment> path;
  int rk = -1;
  for (size_t i = 0; i < job.ranks.size(); ++i) {
    const Rank& r = job.ranks[i];
    if (r.finalize == kNone) continue;
    if (rk < 0 || r.calls[r.finalize].b > job.ranks[static_cast<size_t>(rk)].calls[job.ranks[static_cast<size_t>(rk)].finalize].b)
      rk = static_cast<int>(i);
  }
  size_t total = 0;
  for (const Rank& r : job.ranks) total += r.calls.size();
  uint32_t c = kNone;
  if (rk >= 0) {
    c = job.ranks[static_cast<size_t>(rk)].finalize;
  } else if (job.partial) {
    // No MPI_Finalize: the walk starts at the end vertex of the call that ended last.
    for (size_t i = 0; i < job.ranks.size(); ++i)
      for (uint32_t k = 0; k < job.ranks[i].calls.size(); ++k)
        if (rk < 0 || job.ranks[i].calls[k].e > job.ranks[static_cast<size_t>(rk)].calls[c].e) {
          rk = static_cast<int>(i);
          c = k;
        }
    if (rk < 0) return path;
    const Target t = end_edge(job, rk, c);
    push_end(job, rk, c, t.b, &path);
    rk = t.rank;
    c = t.call;
  } else {
    return path;
  }
  for (size_t steps = 0;; ++steps) {
    if (steps > 4 * total + 16) {
      *truncated = true;
      break;
    }
    // At the begin vertex of call c on rank rk.
    const Rank& r = job.ranks[static_cast<size_t>(rk)];
    const uint32_t p = r.calls[c].from;
    if (p == kNone) {
      if (r.calls[c].b > job.job_begin) path.push_back({rk, "startup", job.job_begin, r.calls[c].b, c});
      break;
    }
    path.push_back({rk, "compute", std::min(r.calls[p].e, r.calls[c].b), r.calls[c].b, c});
    // At the end vertex of call p.
    const Target t = end_edge(job, rk, p);
    push_end(job, rk, p, t.b, &path);
    rk = t.rank;
    c = t.call;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace cpref
