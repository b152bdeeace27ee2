#include "clock_alignment.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "fnv1a.h"
#include "tool_collectives.h"

namespace cpath {

namespace {
constexpr int kSyncTag = 0x6370;  // 'cp'

// Waiting without holding a core. MPICH (ch4) busy-polls inside blocking calls, so with more
// ranks than cores every rank waiting for its turn in the tree, or for its leader's line,
// stays runnable, and a ping-pong round trip costs a scheduler time slice: the bound was
// 4-14 ms under MPICH on 4 ranks / 2 cores. A short spin keeps a round trip between two
// running partners at MPI latency; past it the partner is likely descheduled, and napping
// hands it the core. (The analysis's collectives, src/tool_collectives.h, yield after a spin
// instead: their partners are whole groups, not one ping-pong peer whose next reply a nap awaits.)
constexpr int64_t kSpinNs = 200000;
constexpr long kNapNs = 50000;

void wait_yielding(MPI_Request* req) {
  int done = 0;
  const int64_t spin_until = monotonic_raw_ns() + kSpinNs;
  PMPI_Test(req, &done, MPI_STATUS_IGNORE);
  while (!done) {
    if (monotonic_raw_ns() > spin_until) {
      const timespec nap{0, kNapNs};
      nanosleep(&nap, nullptr);
    }
    PMPI_Test(req, &done, MPI_STATUS_IGNORE);
  }
}

void recv_yielding(void* buf, int n, MPI_Datatype type, int src, int tag, MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  PMPI_Irecv(buf, n, type, src, tag, comm, &req);
  wait_yielding(&req);
}

// How long a pair measures. At least `pingpongs` round trips; then more while none was fast
// (kFastRttNs: shared memory or a low-latency network), within kPairBudgetNs and
// kMaxPingPongs: on an oversubscribed node a pair is often not running on two cores at once,
// and only a round trip taken while both were running gives a tight bound. The bound is the
// measured round trip whatever it is; this only gives it more chances to be small.
constexpr double kFastRttNs = 20000;
constexpr int64_t kPairBudgetNs = 30000000;
constexpr int kMaxPingPongs = 1000;

// Parent of r in the binomial tree rooted at 0: r without its highest set bit.
int tree_parent(int r) {
  int hb = 1;
  while (hb * 2 <= r) hb *= 2;
  return r - hb;
}

// Parent's chain first, then every child's (children of r: r + 2^k for every 2^k > r).
ChainOffset compose_down_tree(MPI_Comm comm, const OffsetSample& edge) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  ChainOffset mine;
  if (me > 0) {
    double pm[3] = {0, 0, 0};
    recv_yielding(pm, 3, MPI_DOUBLE, tree_parent(me), kSyncTag + 1, comm);
    mine = chain_through(ChainOffset{pm[0], pm[1], pm[2] != 0}, edge);
  }
  const double out[3] = {mine.offset_ns, mine.error_ns, mine.valid ? 1.0 : 0.0};
  for (int step = 1; step < np; step *= 2)
    if (step > me && me + step < np) PMPI_Send(out, 3, MPI_DOUBLE, me + step, kSyncTag + 1, comm);
  return mine;
}

// Ranks with one domain id. The split colour holds 31 bits of the id; should two hosts share
// them, the full id disagrees inside the new communicator and it is split again.
MPI_Comm split_by_domain(MPI_Comm comm, uint64_t id, int key) {
  MPI_Comm c = MPI_COMM_NULL;
  PMPI_Comm_split(comm, static_cast<int>(id & 0x7fffffffu), key, &c);
  unsigned long long in[2] = {id, ~id}, mn[2] = {0, 0};
  tool_allreduce(in, mn, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, c);
  if (mn[0] == ~mn[1]) return c;  // min == max
  MPI_Comm c2 = MPI_COMM_NULL;
  PMPI_Comm_split(c, static_cast<int>((id >> 31) & 0x7fffffffu), key, &c2);
  PMPI_Comm_free(&c);
  return c2;
}
}  // namespace

ClockDomain local_clock_domain(const char* source, int sim_index) {
  ClockDomain d;
  if (sim_index >= 0) {
    d.host = "sim" + std::to_string(sim_index);
    d.simulated = true;
  } else {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    d.host = host;
  }
  d.id = fnv1a(d.host + '\0' + source);
  if (d.id == 0) d.id = 1;
  return d;
}

OffsetSample measure_parent_offset(MPI_Comm comm, const TickModel& clock, int pingpongs, uint64_t domain) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  auto now = [&] { return clock.inject(monotonic_raw_ns()); };
  OffsetSample best;
  best.rtt_ns = INFINITY;
  const int64_t dom = static_cast<int64_t>(domain);
  // Round k: ranks [2^k, 2^(k+1)) measure against r - 2^k, all pairs at once. Each message
  // carries the sender's domain; a pair on one clock stops after the first exchange. The child
  // decides how many round trips the pair does; its message says whether another follows.
  for (int step = 1; step < np; step *= 2) {
    if (me < step) {
      const int child = me + step;
      if (child >= np) continue;
      for (int i = 0;; ++i) {
        int64_t m[3] = {0, 0, 0};
        recv_yielding(m, 3, MPI_INT64_T, child, kSyncTag, comm);
        const int64_t r[2] = {now(), dom};
        PMPI_Send(r, 2, MPI_INT64_T, child, kSyncTag, comm);
        if (i == 0 && domain != 0 && m[1] == dom) break;
        if (!m[2]) break;
      }
    } else if (me < 2 * step) {
      const int parent = me - step;
      const int64_t start = monotonic_raw_ns();
      for (int i = 0;; ++i) {
        const bool last = i + 1 >= kMaxPingPongs ||
                          (i + 1 >= pingpongs && (best.rtt_ns <= kFastRttNs || monotonic_raw_ns() - start >= kPairBudgetNs));
        const int64_t t1 = now();
        const int64_t m[3] = {t1, dom, last ? 0 : 1};
        PMPI_Send(m, 3, MPI_INT64_T, parent, kSyncTag, comm);
        int64_t r[2] = {0, 0};
        recv_yielding(r, 2, MPI_INT64_T, parent, kSyncTag, comm);
        const int64_t t3 = now();
        if (i == 0 && domain != 0 && r[1] == dom) {
          best = OffsetSample{(t1 + t3) / 2, 0.0, static_cast<double>(t3 - t1), true, true};
          break;
        }
        const double rtt = static_cast<double>(t3 - t1);
        if (rtt < best.rtt_ns) {
          best.rtt_ns = rtt;
          best.offset_ns = static_cast<double>(r[0]) - (static_cast<double>(t1) + static_cast<double>(t3)) / 2;
          best.at_local_ns = t1 + (t3 - t1) / 2;
          best.valid = true;
        }
        if (last) break;
      }
    }
  }
  if (!best.valid) best.rtt_ns = 0;
  return best;
}

ChainOffset chain_through(const ChainOffset& parent, const OffsetSample& edge) {
  if (edge.same_domain) return parent;
  if (!edge.valid) return ChainOffset{0, 0, false};
  return ChainOffset{parent.offset_ns + edge.offset_ns, parent.error_ns + edge.rtt_ns / 2, parent.valid};
}

AlignModel line_through(int64_t t1, double o1, bool v1, int64_t t2, double o2, bool v2) {
  AlignModel m;
  if (v1) {
    m.ref_local_ns = t1;
    m.offset_ns = o1;
    if (v2 && t2 > t1) m.drift = (o2 - o1) / static_cast<double>(t2 - t1);
  } else if (v2) {
    m.ref_local_ns = t2;
    m.offset_ns = o2;
  }
  return m;
}

ClockAlignment align_clocks(MPI_Comm comm, const TickModel& clock, const OffsetSample& at_init,
                            const ClockDomain& domain, bool enabled, int pingpongs) {
  ClockAlignment out;
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  // The MPI_Init exchanges already tell whether the whole tree is one clock: then there is
  // nothing to find or align, and one MPI_Allreduce replaces the communicator splits.
  // Ranks that reach MPI_Finalize early wait here for the last one without taking a core
  // from it (see wait_yielding).
  int one = me == 0 || (at_init.valid && at_init.same_domain), all_one = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  PMPI_Iallreduce(&one, &all_one, 1, MPI_INT, MPI_MIN, comm, &req);
  wait_yielding(&req);
  const int64_t t0 = monotonic_raw_ns();
  if (all_one) return out;
  MPI_Comm host = split_by_domain(comm, domain.id, me);
  int host_rank = 0;
  PMPI_Comm_rank(host, &host_rank);
  const bool leader = host_rank == 0;  // the split is keyed by world rank: the lowest one leads
  MPI_Comm leaders = MPI_COMM_NULL;
  PMPI_Comm_split(comm, leader ? 0 : MPI_UNDEFINED, me, &leaders);
  int info[2] = {me, 1};  // leader's world rank, number of hosts
  if (leader) PMPI_Comm_size(leaders, &info[1]);
  tool_bcast(info, 2, MPI_INT, 0, host);
  out.leader = info[0];
  out.hosts = info[1];
  out.applied = enabled && out.hosts > 1;  // the same on every rank
  if (out.applied) {
    // MPI_Init measurements, taken over the tree of all ranks, composed down that tree: each
    // leader's edge to its parent crosses hosts (the parent is a lower rank), edges inside a
    // host add nothing. Then the leaders measure again among themselves.
    const ChainOffset at_i = compose_down_tree(comm, at_init);
    double line[4] = {0, 0, 0, 0};  // ref, offset, drift, error
    if (leader) {
      const OffsetSample fin = measure_parent_offset(leaders, clock, pingpongs, 0);
      const ChainOffset at_f = compose_down_tree(leaders, fin);
      if (me != 0) {
        const bool vi = at_i.valid && at_init.valid && !at_init.same_domain;
        const bool vf = at_f.valid && fin.valid;
        const AlignModel m = line_through(at_init.at_local_ns, at_i.offset_ns, vi, fin.at_local_ns, at_f.offset_ns, vf);
        line[0] = static_cast<double>(m.ref_local_ns);
        line[1] = m.offset_ns;
        line[2] = m.drift;
        line[3] = std::max(vi ? at_i.error_ns : 0.0, vf ? at_f.error_ns : 0.0);
      }
    }
    // The other ranks of a host wait here while the leaders measure: yielding, so that the
    // leaders' round trips are not slowed by ranks that have nothing to do.
    PMPI_Ibcast(line, 4, MPI_DOUBLE, 0, host, &req);
    wait_yielding(&req);
    out.model.ref_local_ns = static_cast<int64_t>(line[0]);
    out.model.offset_ns = line[1];
    out.model.drift = line[2];
    out.error_ns = line[3];
  }
  if (leaders != MPI_COMM_NULL) PMPI_Comm_free(&leaders);
  PMPI_Comm_free(&host);
  out.cost_ns = monotonic_raw_ns() - t0;
  return out;
}

}  // namespace cpath
