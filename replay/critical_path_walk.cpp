#include "critical_path_walk.h"

#include <algorithm>
#include <climits>

namespace cpath {

namespace {

constexpr int kWalkTag = 0x6377;
enum : long long { kToken = 1, kDone = 2 };

struct Walker {
  const RankPag& pag;
  const Timeline& tl;
  MPI_Comm comm;
  int me = 0, np = 1;
  uint64_t limit = 0;
  WalkResult r;

  // Walks from the begin vertex of `event`. Returns true when the path is complete here;
  // otherwise it has been handed to another rank.
  bool walk_from(uint32_t event, uint64_t& steps) {
    const LocalWalkEnd end = walk_local(pag, tl, me, event, r.job_begin, steps, limit, &r.segments);
    if (end.truncated) r.truncated = true;
    if (end.rank < 0 || end.truncated) return true;
    const long long msg[3] = {kToken, static_cast<long long>(end.event), static_cast<long long>(steps)};
    PMPI_Send(msg, 3, MPI_LONG_LONG, end.rank, kWalkTag, comm);
    ++r.handoffs;
    return false;
  }

  void broadcast_done(int root) {
    // Binomial tree rooted at the rank that finished the walk.
    const int rel = (me - root + np) % np;
    const long long msg[3] = {kDone, root, 0};
    for (int step = 1; step < np; step *= 2)
      if (step > rel && rel + step < np) PMPI_Send(msg, 3, MPI_LONG_LONG, (rel + step + root) % np, kWalkTag, comm);
  }

  void run() {
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    // Where the path starts: the latest MPI_Finalize entry (ties: lowest rank).
    const uint32_t fin = pag.finalize_event();
    struct {
      double t;
      int rank;
    } mine{fin != kNoEvent ? static_cast<double>(tl.ev[fin].begin) : -1e300, me}, latest;
    PMPI_Allreduce(&mine, &latest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    long long first_init = pag.init_event() != kNoEvent ? tl.ev[pag.init_event()].begin : LLONG_MAX;
    long long earliest = 0;
    PMPI_Allreduce(&first_init, &earliest, 1, MPI_LONG_LONG, MPI_MIN, comm);
    unsigned long long n = tl.ev.size(), total = 0;
    PMPI_Allreduce(&n, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    limit = 4 * total + 16;
    r.start_rank = latest.rank;
    r.finalize_begin = static_cast<int64_t>(latest.t);
    r.job_begin = earliest;
    if (latest.t < -1e299) return;  // nobody recorded MPI_Finalize: nothing to walk
    uint64_t steps = 0;
    if (me == latest.rank && walk_from(fin, steps)) {
      broadcast_done(me);
      return;
    }
    while (true) {
      long long msg[3];
      MPI_Status st;
      PMPI_Recv(msg, 3, MPI_LONG_LONG, MPI_ANY_SOURCE, kWalkTag, comm, &st);
      if (msg[0] == kDone) {
        broadcast_done(static_cast<int>(msg[1]));
        return;
      }
      steps = static_cast<uint64_t>(msg[2]);
      if (msg[1] < 0 || static_cast<size_t>(msg[1]) >= tl.ev.size()) {
        r.truncated = true;
        broadcast_done(me);
        return;
      }
      if (walk_from(static_cast<uint32_t>(msg[1]), steps)) {
        broadcast_done(me);
        return;
      }
    }
  }
};

}  // namespace

LocalWalkEnd walk_local(const RankPag& pag, const Timeline& tl, int me, uint32_t event, int64_t job_begin,
                        uint64_t& steps, uint64_t limit, std::vector<Segment>* segments) {
  uint32_t i = event;
  while (true) {
    if (++steps > limit) return LocalWalkEnd{-1, 0, true};
    // At the begin vertex of i.
    if (pag.is_init(i) || pag.prev(i) == kNoEvent) {
      const int64_t b = tl.ev[i].begin;
      if (b > job_begin) segments->push_back({job_begin, b, i, kNoEvent, SegmentKind::Startup});
      return LocalWalkEnd{};
    }
    const uint32_t j = pag.prev(i);
    const int64_t e = tl.ev[j].end;
    const int64_t b = tl.ev[i].begin;
    segments->push_back({std::min(e, b), b, i, j, SegmentKind::Compute});
    // At the end vertex of j.
    const PagTarget t = pag.end_edge(j);
    segments->push_back({t.begin, tl.ev[j].end, j, kNoEvent, SegmentKind::Mpi});
    if (t.rank != me) return LocalWalkEnd{t.rank, t.event, false};
    i = t.event;
  }
}

WalkResult walk_critical_path(const RankPag& pag, const Timeline& tl, MPI_Comm comm) {
  Walker w{pag, tl, comm, 0, 1, 0, WalkResult()};
  w.run();
  return std::move(w.r);
}

}  // namespace cpath
