// Mapping every rank's clock onto rank 0's. Ranks on one host that read the same clock source
// (TSC or CLOCK_MONOTONIC_RAW, both system-wide on Linux) share one clock: they are never
// aligned against each other. Only hosts are aligned, through their leaders (lowest world
// rank per host): offsets measured by ping-pong in a binomial tree at MPI_Init and again at
// MPI_Finalize (O(log P) rounds, the lowest-latency sample of each exchange kept; waits yield
// the core, so that oversubscribed ranks do not stretch the measured round trips), composed
// down the tree into one offset + drift line per host, which every rank of the host uses.
// docs/pag-rules.md ("Clocks") and docs/design.md state the scheme.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>

#include "clock.h"

namespace cpath {

// The clock condition after alignment (docs/pag-rules.md, "Clocks"): a call that waits for a
// begin on another rank ends at least kClockMinLatencyNs after it; violations are repaired
// in at most kClockRepairRounds rounds. Both numbers travel in the trace meta data.
constexpr int64_t kClockMinLatencyNs = 1;
constexpr int kClockRepairRounds = 64;

struct AlignModel {
  int64_t ref_local_ns = 0;  // local time of the first measurement
  double offset_ns = 0;      // global - local at ref_local_ns
  double drift = 0;          // d(global - local) / d(local)
  int64_t to_global(int64_t local) const {
    return local + static_cast<int64_t>(offset_ns + drift * static_cast<double>(local - ref_local_ns));
  }
  int64_t to_local(int64_t global) const {
    const double x = static_cast<double>(global) - offset_ns + drift * static_cast<double>(ref_local_ns);
    return static_cast<int64_t>(x / (1.0 + drift));
  }
};

// The clock a rank reads: ranks with the same id read one clock.
struct ClockDomain {
  uint64_t id = 1;    // hash of (host, clock source); never 0
  std::string host;   // host name, or "sim<k>" for a simulated host (tests)
  bool simulated = false;
};
// `sim_index` >= 0 puts the rank on simulated host "sim<sim_index>" (test option sim_hosts, or
// clock-skew injection, which gives a rank a clock of its own).
ClockDomain local_clock_domain(const char* source, int sim_index);

// One offset measurement against the tree parent: parent_clock - my_clock at my local time `at`.
struct OffsetSample {
  int64_t at_local_ns = 0;
  double offset_ns = 0;
  double rtt_ns = 0;
  bool valid = false;
  bool same_domain = false;  // parent reads the same clock: offset 0 exactly, nothing measured
};

// Collective over `comm`: measures this rank's offset to its binomial-tree parent. Each pair
// first exchanges its clock-domain id; pairs on one clock stop after that one exchange.
// `domain` 0 means "always measure". Times are read with `clock` (including any injected
// distortion).
OffsetSample measure_parent_offset(MPI_Comm comm, const TickModel& clock, int pingpongs, uint64_t domain);

// Offset to the tree root (global - local), accumulated edge by edge down the tree.
struct ChainOffset {
  double offset_ns = 0;
  double error_ns = 0;  // sum of half round trips of the measured edges
  bool valid = true;
};
// The root's chain is {0, 0, valid}; a child's is its parent's plus its own edge. Edges
// between ranks of one clock add nothing, exactly.
ChainOffset chain_through(const ChainOffset& parent, const OffsetSample& edge);
// The line through two (local time, global - local) measurements; one valid point gives a
// constant offset, none the identity.
AlignModel line_through(int64_t t1, double o1, bool v1, int64_t t2, double o2, bool v2);

struct ClockAlignment {
  AlignModel model;
  double error_ns = 0;   // bound: sum of half round trips along the host's paths to rank 0
  int hosts = 1;         // distinct clock domains in the job
  int leader = 0;        // world rank of this rank's host leader
  bool applied = false;  // hosts > 1 and alignment enabled
  int64_t cost_ns = 0;   // time spent here after the first collective (which absorbs the
                         // wait for the last rank to reach MPI_Finalize)
};

// Collective over `comm` (at MPI_Finalize): when the MPI_Init exchanges found one clock on
// every tree edge, one MPI_Allreduce and nothing else; otherwise finds the hosts (split by
// domain id), measures between host leaders, composes, and gives every rank its leader's line. `at_init` is this
// rank's measurement from MPI_Init (measure_parent_offset over the same comm).
ClockAlignment align_clocks(MPI_Comm comm, const TickModel& clock, const OffsetSample& at_init,
                            const ClockDomain& domain, bool enabled, int pingpongs);

}  // namespace cpath
