// Clock composition (src/clock_alignment.h): offsets chained down the tree of host leaders,
// edges inside one clock exact, the line through the MPI_Init and MPI_Finalize measurements,
// and the clock-domain identity that decides who shares a clock.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "clock_alignment.h"

using namespace cpath;

namespace {

// A host clock that is off by `a` ns and runs `d` too fast, relative to host 0's.
struct HostClock {
  double a, d;
  double local(double t) const { return t + a + d * t; }
};

// What the ping-pong measures for edge child -> parent at true time t: the parent's clock
// minus the child's, at the child's local time.
OffsetSample sample(const HostClock& child, const HostClock& parent, double t, double rtt) {
  OffsetSample s;
  s.at_local_ns = static_cast<int64_t>(std::llround(child.local(t)));
  s.offset_ns = parent.local(t) - child.local(t);
  s.rtt_ns = rtt;
  s.valid = true;
  return s;
}

}  // namespace

TEST(ClockChain, SameClockEdgeAddsNothing) {
  const ChainOffset parent{1234.5, 20.0, true};
  OffsetSample e;
  e.same_domain = true;
  e.valid = true;
  e.offset_ns = 999;  // never used: ranks on one clock are not measured
  e.rtt_ns = 400;
  const ChainOffset c = chain_through(parent, e);
  EXPECT_EQ(c.offset_ns, 1234.5);
  EXPECT_EQ(c.error_ns, 20.0);
  EXPECT_TRUE(c.valid);
}

TEST(ClockChain, MeasuredEdgeAddsOffsetAndHalfRoundTrip) {
  OffsetSample e;
  e.valid = true;
  e.offset_ns = -300;
  e.rtt_ns = 1000;
  const ChainOffset c = chain_through(ChainOffset{50, 10, true}, e);
  EXPECT_EQ(c.offset_ns, -250);
  EXPECT_EQ(c.error_ns, 510);
  EXPECT_TRUE(c.valid);
  EXPECT_FALSE(chain_through(ChainOffset{50, 10, true}, OffsetSample{}).valid);
  EXPECT_FALSE(chain_through(ChainOffset{50, 10, false}, e).valid);
}

TEST(ClockLine, ThroughTwoPointsOnePointOrNone) {
  const AlignModel m = line_through(1000, 50, true, 1001000, 150, true);
  EXPECT_EQ(m.ref_local_ns, 1000);
  EXPECT_EQ(m.offset_ns, 50);
  EXPECT_DOUBLE_EQ(m.drift, 100.0 / 1e6);
  EXPECT_EQ(m.to_global(1000), 1050);
  EXPECT_EQ(m.to_global(501000), 501000 + 100);
  const AlignModel one = line_through(1000, 50, false, 2000, 70, true);
  EXPECT_EQ(one.ref_local_ns, 2000);
  EXPECT_EQ(one.offset_ns, 70);
  EXPECT_EQ(one.drift, 0);
  const AlignModel none = line_through(1000, 50, false, 2000, 70, false);
  EXPECT_EQ(none.to_global(123456789), 123456789);
  // Points in the wrong order give a constant, never a negative time span.
  EXPECT_EQ(line_through(2000, 50, true, 1000, 70, true).drift, 0);
}

TEST(ClockLine, ToLocalInvertsToGlobal) {
  AlignModel m;
  m.ref_local_ns = 5000000000;
  m.offset_ns = -3e6;
  m.drift = -2e-4;
  for (int64_t l : {int64_t{4000000000}, int64_t{5000000000}, int64_t{9000000000}})
    EXPECT_NEAR(static_cast<double>(m.to_local(m.to_global(l))), static_cast<double>(l), 2.0);
}

// Four hosts with their own offsets and drifts; leaders' tree 1->0, 2->0, 3->1 (binomial).
// Offsets chained at MPI_Init (t = 0.2 s) and MPI_Finalize (t = 9 s), the line through them
// maps every host's clock onto host 0's at any time in between, to within a nanosecond or so.
TEST(ClockComposition, LeadersTreeRecoversReferenceClock) {
  const std::vector<HostClock> h = {{0, 0}, {3e6, 2e-4}, {-6e6, -1.5e-4}, {9e6, 5e-5}};
  const int parent[4] = {-1, 0, 0, 1};
  const double ti = 2e8, tf = 9e9;
  std::vector<ChainOffset> ci(4), cf(4);
  for (int r = 1; r < 4; ++r) {
    ci[static_cast<size_t>(r)] = chain_through(ci[static_cast<size_t>(parent[r])], sample(h[static_cast<size_t>(r)], h[static_cast<size_t>(parent[r])], ti, 800));
    cf[static_cast<size_t>(r)] = chain_through(cf[static_cast<size_t>(parent[r])], sample(h[static_cast<size_t>(r)], h[static_cast<size_t>(parent[r])], tf, 600));
  }
  EXPECT_EQ(ci[3].error_ns, 800.0);  // two measured edges of 800 ns round trip
  EXPECT_EQ(cf[3].error_ns, 600.0);
  for (int r = 1; r < 4; ++r) {
    const HostClock& c = h[static_cast<size_t>(r)];
    const AlignModel m = line_through(std::llround(c.local(ti)), ci[static_cast<size_t>(r)].offset_ns, true,
                                      std::llround(c.local(tf)), cf[static_cast<size_t>(r)].offset_ns, true);
    for (double t : {ti, 1e9, 5e9, tf}) {
      const int64_t g = m.to_global(std::llround(c.local(t)));
      EXPECT_NEAR(static_cast<double>(g), h[0].local(t), 2.0) << "host " << r << " at t=" << t;
    }
  }
}

// A rank that shares its leader's clock needs no measurement of its own: chaining through
// same-clock edges gives it exactly its leader's offset.
TEST(ClockComposition, MembersOfAHostGetTheLeadersOffset) {
  const HostClock h0{0, 0}, h1{-4e6, 1e-4};
  const ChainOffset leader1 = chain_through(ChainOffset{}, sample(h1, h0, 1e8, 500));
  OffsetSample same;
  same.same_domain = true;
  same.valid = true;
  const ChainOffset member = chain_through(chain_through(leader1, same), same);
  EXPECT_EQ(member.offset_ns, leader1.offset_ns);
  EXPECT_EQ(member.error_ns, leader1.error_ns);
}

TEST(ClockDomain, SameHostAndSourceShareOneClock) {
  const ClockDomain a = local_clock_domain("tsc", -1), b = local_clock_domain("tsc", -1);
  EXPECT_EQ(a.id, b.id);
  EXPECT_FALSE(a.simulated);
  EXPECT_NE(a.id, local_clock_domain("monotonic_raw", -1).id);
  const ClockDomain s0 = local_clock_domain("tsc", 0), s1 = local_clock_domain("tsc", 1);
  EXPECT_TRUE(s0.simulated);
  EXPECT_EQ(s0.host, "sim0");
  EXPECT_NE(s0.id, s1.id);
  EXPECT_NE(s0.id, a.id);
  EXPECT_EQ(s1.id, local_clock_domain("tsc", 1).id);
  EXPECT_NE(a.id, 0u);
}
