#include "clock_alignment.h"

#include <cmath>

namespace cpath {

namespace {
constexpr int kSyncTag = 0x6370;  // 'cp'

// Parent of r in the binomial tree rooted at 0: r without its highest set bit.
int tree_parent(int r) {
  int hb = 1;
  while (hb * 2 <= r) hb *= 2;
  return r - hb;
}
}  // namespace

OffsetSample measure_parent_offset(MPI_Comm comm, const TickModel& clock, int pingpongs) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  auto now = [&] { return static_cast<double>(clock.inject(monotonic_raw_ns())); };
  OffsetSample best;
  best.rtt_ns = INFINITY;
  // Round k: ranks [2^k, 2^(k+1)) measure against r - 2^k, all pairs at once.
  for (int step = 1; step < np; step *= 2) {
    if (me < step) {
      const int child = me + step;
      if (child >= np) continue;
      for (int i = 0; i < pingpongs; ++i) {
        double t1 = 0;
        PMPI_Recv(&t1, 1, MPI_DOUBLE, child, kSyncTag, comm, MPI_STATUS_IGNORE);
        const double t2 = now();
        PMPI_Send(&t2, 1, MPI_DOUBLE, child, kSyncTag, comm);
      }
    } else if (me < 2 * step) {
      const int parent = me - step;
      for (int i = 0; i < pingpongs; ++i) {
        const double t1 = now();
        PMPI_Send(&t1, 1, MPI_DOUBLE, parent, kSyncTag, comm);
        double t2 = 0;
        PMPI_Recv(&t2, 1, MPI_DOUBLE, parent, kSyncTag, comm, MPI_STATUS_IGNORE);
        const double t3 = now();
        if (t3 - t1 < best.rtt_ns) {
          best.rtt_ns = t3 - t1;
          best.offset_ns = t2 - (t1 + t3) / 2;
          best.at_local_ns = static_cast<int64_t>((t1 + t3) / 2);
          best.valid = true;
        }
      }
    }
  }
  if (!best.valid) best.rtt_ns = 0;
  return best;
}

AlignModel compose_alignment(MPI_Comm comm, const OffsetSample& a, const OffsetSample& b, double* max_error_ns) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  AlignModel m;
  double err = 0;
  if (me > 0) {
    double pm[4] = {0, 0, 0, 0};  // parent's ref, offset, drift, error
    PMPI_Recv(pm, 4, MPI_DOUBLE, tree_parent(me), kSyncTag + 1, comm, MPI_STATUS_IGNORE);
    const double p_ref = pm[0], p_off = pm[1], p_drift = pm[2];
    // Offset to the parent as a line through the init and finalize measurements.
    double d1 = 0;
    double o_i = a.valid ? a.offset_ns : (b.valid ? b.offset_ns : 0);
    double a_t = static_cast<double>(a.valid ? a.at_local_ns : b.at_local_ns);
    if (a.valid && b.valid && b.at_local_ns > a.at_local_ns)
      d1 = (b.offset_ns - a.offset_ns) / static_cast<double>(b.at_local_ns - a.at_local_ns);
    // global(l) = P(l + o_i + d1 (l - a_t)), with P(x) = x + p_off + p_drift (x - p_ref).
    m.ref_local_ns = static_cast<int64_t>(a_t);
    m.drift = (1 + d1) * (1 + p_drift) - 1;
    const double parent_at_ref = a_t + o_i;
    m.offset_ns = parent_at_ref + p_off + p_drift * (parent_at_ref - p_ref) - a_t;
    err = pm[3] + std::max(a.rtt_ns, b.rtt_ns) / 2;
  }
  const double out[4] = {static_cast<double>(m.ref_local_ns), m.offset_ns, m.drift, err};
  for (int step = 1; step < np; step *= 2) {
    // My children are me + 2^k for every 2^k greater than me.
    if (step > me && me + step < np) PMPI_Send(out, 4, MPI_DOUBLE, me + step, kSyncTag + 1, comm);
  }
  if (max_error_ns) *max_error_ns = err;
  return m;
}

}  // namespace cpath
