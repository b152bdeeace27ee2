// The critical-path walk alone, on a synthetic path with a chosen number of hand-offs: a token
// ring (every rank receives from its left neighbour, then sends to its right) where every
// receive waits for the sender, so the path changes rank at every message. Optional filler
// calls between the rounds add events that are not hand-offs.
//
//   mpirun -np P walk_bench HANDOFFS [--pad N] [--sequential-max H] [--reps R] [--walks K]
//
// Runs the jumping walk (and the sequential one when HANDOFFS <= --sequential-max, default
// 20000), checks that both give the same segments, and prints one Markdown row on rank 0:
// ranks, hand-offs, events per rank, rounds, time of the jumping walk (slowest rank; of which
// the collective rounds), time of the sequential walk. bench/walk_bench.py runs the grid.
// With --walks K (the what-if walks one new path per scenario) it prints instead: K walks one
// after another against the K walks in shared rounds (walk_critical_paths_jumping), and
// whether every shared walk equals its own.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "critical_path_walk.h"
#include "walk_graph.h"

using namespace cpath;

namespace {

class TokenRing final : public WalkGraph {
 public:
  TokenRing(int rank, int ranks, uint32_t rounds, uint32_t pad)
      : r_(rank), p_(ranks), k_(rounds), pad_(pad), per_(pad + 2), step_(200 + 4 * static_cast<int64_t>(pad)) {}
  uint32_t events() const override { return 2 + k_ * per_; }
  int64_t begin(uint32_t i) const override {
    if (i == 0) return r_;
    if (i == finalize_event()) return t(static_cast<int64_t>(k_) * p_) + r_;
    const uint32_t k = (i - 1) / per_, m = (i - 1) % per_;
    const int64_t g = static_cast<int64_t>(k) * p_ + r_;
    if (m < pad_) return (k == 0 ? 100 : t(g - p_) + 60) + 2 * m;  // fillers after the previous send
    return m == pad_ ? t(g) - 95 : t(g) + 30;     // receive, send
  }
  int64_t end(uint32_t i) const override {
    if (i == 0) return 50;
    if (i == finalize_event()) return begin(i);
    const uint32_t m = (i - 1) % per_;
    if (m < pad_) return begin(i) + 1;
    return m == pad_ ? t(static_cast<int64_t>((i - 1) / per_) * p_ + r_) + 20 : begin(i) + 20;
  }
  uint32_t prev(uint32_t i) const override { return i == 0 ? kNoEvent : i - 1; }
  PagTarget end_edge(uint32_t i) const override {
    PagTarget own{r_, i, begin(i)};
    if (i == 0 || i == finalize_event() || (i - 1) % per_ != pad_) return own;
    // A receive: it waited for the left neighbour's send of the same slot minus one.
    const int64_t g = static_cast<int64_t>((i - 1) / per_) * p_ + r_;
    if (g == 0) return own;
    const int src = (r_ + p_ - 1) % p_;
    const uint32_t k = static_cast<uint32_t>((g - 1) / p_);
    return PagTarget{src, 1 + k * per_ + pad_ + 1, t(g - 1) + 30};
  }
  bool is_init(uint32_t i) const override { return i == 0; }
  uint32_t finalize_event() const override { return 1 + k_ * per_; }
  uint32_t init_event() const override { return 0; }

 private:
  int64_t t(int64_t slot) const { return step_ * (slot + 1); }
  int r_, p_;
  uint32_t k_, pad_, per_;
  int64_t step_;
};

bool same(const WalkResult& a, const WalkResult& b) {
  if (a.segments.size() != b.segments.size() || a.handoffs != b.handoffs) return false;
  for (size_t i = 0; i < a.segments.size(); ++i) {
    const Segment &x = a.segments[i], &y = b.segments[i];
    if (x.begin != y.begin || x.end != y.end || x.event != y.event || x.kind != y.kind) return false;
  }
  return true;
}

double timed(const WalkGraph& g, bool jumping, WalkResult* out) {
  PMPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  *out = jumping ? walk_critical_path_jumping(g, MPI_COMM_WORLD) : walk_critical_path_sequential(g, MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0, tmax = 0;
  PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

// K walks of g: one after another, or in shared rounds. Slowest rank's time; `ok` false when a
// shared walk differs from the walk alone.
void time_walks(const WalkGraph& g, uint32_t k, uint32_t reps, double* apart, double* together, bool* ok) {
  *apart = *together = 1e300;
  *ok = true;
  std::vector<WalkResult> alone(k);
  for (uint32_t r = 0; r < reps; ++r) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (uint32_t x = 0; x < k; ++x) alone[x] = walk_critical_path_jumping(g, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax = 0;
    PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *apart = std::min(*apart, tmax);
    std::vector<const WalkGraph*> gs(k, &g);
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    walk_critical_paths_jumping(gs, MPI_COMM_WORLD, [&](size_t x, WalkResult& w, bool) { *ok = *ok && same(w, alone[x]); });
    t = MPI_Wtime() - t0;
    PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *together = std::min(*together, tmax);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2 || np < 2) {
    if (me == 0) std::fprintf(stderr, "usage: mpirun -np P (P >= 2) walk_bench HANDOFFS [--pad N] [--sequential-max H] [--reps R]\n");
    MPI_Finalize();
    return 2;
  }
  const uint64_t handoffs = std::strtoull(argv[1], nullptr, 10);
  uint32_t pad = 0, reps = 3, walks = 1;
  uint64_t seq_max = 20000;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--pad")) pad = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--sequential-max")) seq_max = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--reps")) reps = static_cast<uint32_t>(std::max(1, std::atoi(argv[i + 1])));
    else if (!std::strcmp(argv[i], "--walks")) walks = static_cast<uint32_t>(std::max(1, std::atoi(argv[i + 1])));
  }
  // H hand-offs: rounds * ranks - 1 messages on the path.
  const uint32_t rounds = static_cast<uint32_t>((handoffs + 1 + np - 1) / np);
  const TokenRing g(me, np, rounds, pad);
  if (walks > 1) {
    double apart = 0, together = 0;
    bool ok = true;
    time_walks(g, walks, reps, &apart, &together, &ok);
    int mine = ok, all = 1;
    PMPI_Reduce(&mine, &all, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (me == 0) {
      std::printf("| %d | %u | %u | %.4f | %.4f | %s |\n", np, rounds * np - 1, walks, apart, together, all ? "yes" : "NO");
      std::fflush(stdout);
    }
    MPI_Finalize();
    return all ? 0 : 1;
  }
  WalkResult jw, sw;
  double tj = 1e300, tjr = 0, ts = -1;
  for (uint32_t r = 0; r < reps; ++r) {
    const double t = timed(g, true, &jw);
    if (t < tj) tj = t;
  }
  double rounds_s = jw.rounds_s, rounds_max = 0;
  PMPI_Allreduce(&rounds_s, &rounds_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  tjr = rounds_max;
  unsigned long long h = jw.handoffs, htotal = 0;
  PMPI_Reduce(&h, &htotal, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int equal = 1, all_equal = 1;
  if (handoffs <= seq_max) {
    ts = timed(g, false, &sw);
    equal = same(jw, sw);
  }
  PMPI_Reduce(&equal, &all_equal, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (me == 0) {
    std::printf("| %d | %llu | %u | %u | %.4f | %.4f | %s | %s |\n", np, htotal, g.events(), jw.rounds, tj, tjr,
                ts < 0 ? "-" : std::to_string(ts).substr(0, 7).c_str(), ts < 0 ? "-" : all_equal ? "yes" : "NO");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return all_equal ? 0 : 1;
}
