#include "critical_path_walk.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "walk_local.h"
#include "yielding_wait.h"

namespace cpath {

namespace {

constexpr int kWalkTag = 0x6377;
enum : long long { kToken = 1, kDone = 2 };

struct StartAgg {
  int64_t finalize_begin;  // INT64_MIN: no MPI_Finalize recorded
  int64_t init_begin;      // INT64_MAX: no MPI_Init recorded
  uint64_t events;
  uint64_t max_events;
  int32_t rank;
  int32_t pad;
};

void start_combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const StartAgg* a = static_cast<const StartAgg*>(in);
  StartAgg* b = static_cast<StartAgg*>(inout);
  for (int i = 0; i < *len; ++i) {
    if (a[i].finalize_begin > b[i].finalize_begin ||
        (a[i].finalize_begin == b[i].finalize_begin && a[i].rank < b[i].rank)) {
      b[i].finalize_begin = a[i].finalize_begin;
      b[i].rank = a[i].rank;
    }
    b[i].init_begin = std::min(a[i].init_begin, b[i].init_begin);
    b[i].events += a[i].events;
    b[i].max_events = std::max(a[i].max_events, b[i].max_events);
  }
}

struct Walker {
  const WalkGraph& g;
  MPI_Comm comm;
  int me = 0, np = 1;
  uint64_t limit = 0;
  WalkResult r;

  // Walks from the begin vertex of `event`. Returns true when the path is complete here;
  // otherwise it has been handed to another rank.
  bool walk_from(uint32_t event, uint64_t& steps) {
    const LocalWalkEnd end = walk_local(g, me, event, r.job_begin, steps, limit, &r.segments);
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
    const WalkStart st = agree_walk_start(g, comm);
    limit = 4 * st.total_events + 16;
    r.start_rank = st.rank;
    r.finalize_begin = st.finalize_begin;
    r.job_begin = st.job_begin;
    if (st.rank < 0) return;  // nobody recorded MPI_Finalize: nothing to walk
    uint64_t steps = 0;
    if (me == st.rank && walk_from(g.finalize_event(), steps)) {
      broadcast_done(me);
      return;
    }
    while (true) {
      long long msg[3];
      MPI_Status status;
      recv_yielding(msg, 3, MPI_LONG_LONG, MPI_ANY_SOURCE, kWalkTag, comm, &status);
      if (msg[0] == kDone) {
        broadcast_done(static_cast<int>(msg[1]));
        return;
      }
      steps = static_cast<uint64_t>(msg[2]);
      if (msg[1] < 0 || msg[1] >= static_cast<long long>(g.events())) {
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

WalkStart agree_walk_start(const WalkGraph& g, MPI_Comm comm) { return agree_walk_starts({&g}, comm).front(); }

std::vector<WalkStart> agree_walk_starts(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm) {
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  std::vector<StartAgg> mine, all;
  for (const WalkGraph* g : graphs) {
    const uint32_t fin = g->finalize_event(), init = g->init_event();
    mine.push_back(StartAgg{fin != kNoEvent ? g->begin(fin) : INT64_MIN, init != kNoEvent ? g->begin(init) : INT64_MAX,
                            g->events(), g->events(), fin != kNoEvent ? me : INT32_MAX, 0});
  }
  all = mine;
  MPI_Datatype type;
  PMPI_Type_contiguous(sizeof(StartAgg), MPI_BYTE, &type);
  PMPI_Type_commit(&type);
  MPI_Op op;
  PMPI_Op_create(start_combine, 1, &op);
  tool_allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), type, op, comm);
  PMPI_Op_free(&op);
  PMPI_Type_free(&type);
  std::vector<WalkStart> out;
  for (const StartAgg& a : all) {
    WalkStart s;
    s.rank = a.finalize_begin == INT64_MIN ? -1 : a.rank;
    s.finalize_begin = a.finalize_begin == INT64_MIN ? 0 : a.finalize_begin;
    s.job_begin = a.init_begin == INT64_MAX ? LLONG_MAX : a.init_begin;
    s.total_events = a.events;
    s.max_events = a.max_events;
    out.push_back(s);
  }
  return out;
}

LocalWalkEnd walk_local(const WalkGraph& g, int me, uint32_t event, int64_t job_begin, uint64_t& steps,
                        uint64_t limit, std::vector<Segment>* segments, size_t pause_at) {
  return walk_local_into(g, me, event, job_begin, steps, limit, segments, pause_at);
}

LocalWalkEnd walk_local(const RankPag& pag, const Timeline& tl, int me, uint32_t event, int64_t job_begin,
                        uint64_t& steps, uint64_t limit, std::vector<Segment>* segments) {
  return walk_local(PagGraph(pag, tl), me, event, job_begin, steps, limit, segments);
}

WalkResult walk_critical_path_sequential(const WalkGraph& g, MPI_Comm comm) {
  Walker w{g, comm, 0, 1, 0, WalkResult()};
  w.run();
  return std::move(w.r);
}

WalkResult walk_critical_path(const RankPag& pag, const Timeline& tl, MPI_Comm comm) {
  return walk_critical_path_jumping(PagGraph(pag, tl), comm);
}

}  // namespace cpath
