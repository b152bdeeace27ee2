// Hotspot tables from synthetic samples: attribution to intervals, columns,
// top-N, and the serialise/deserialise/merge cycle used across ranks.
#include "pmu/hotspots.h"

#include <gtest/gtest.h>

#include <map>

namespace cpath::pmu {
namespace {

Sample make(uint64_t time, uint64_t ip, uint64_t weight, uint64_t cycles = 0, uint64_t instructions = 0) {
  Sample s;
  s.time_ns = time;
  s.ip = ip;
  s.tid = 1;
  s.weight_ns = weight;
  s.cycles = cycles;
  s.instructions = instructions;
  return s;
}

// ip ranges stand for functions: 0x1xx solve, 0x2xx exchange, 0x3xx in libmpi.
FunctionKey resolve(uint64_t ip) {
  if (ip < 0x200) return {"solve", "app"};
  if (ip < 0x300) return {"exchange", "app"};
  return {"MPI_Recv", "libmpi.so"};
}

const HotspotRow* find(const HotspotTable& t, const std::string& function) {
  for (const HotspotRow& r : t.rows())
    if (r.function == function) return &r;
  return nullptr;
}

TEST(Hotspots, AggregatesInsideAndOutsideIntervals) {
  const std::vector<Sample> samples = {
      make(5, 0x100, 1000, 2000, 1000),   // before any interval
      make(10, 0x110, 1000, 3000, 1000),  // compute [10,20): start is inside
      make(19, 0x200, 1000, 1000, 1000),  // compute
      make(20, 0x300, 1000, 500, 100),    // mpi [20,30): end of compute is exclusive
      make(29, 0x300, 1000, 500, 100),    // mpi
      make(30, 0x100, 1000, 1000, 1000),  // gap
      make(45, 0x120, 1000, 4000, 1000),  // compute [40,50)
      make(99, 0x300, 1000, 500, 100),    // after all intervals
  };
  const std::vector<TimeInterval> intervals = {
      {10, 20, IntervalKind::compute}, {20, 30, IntervalKind::mpi}, {40, 50, IntervalKind::compute}};

  int resolver_calls = 0;
  HotspotTables t;
  ASSERT_TRUE(aggregate_hotspots(
      samples, intervals,
      [&](uint64_t ip) {
        ++resolver_calls;
        return resolve(ip);
      },
      true, true, t));
  EXPECT_EQ(resolver_calls, 5);  // distinct addresses only

  ASSERT_EQ(t.all.size(), 3u);
  EXPECT_EQ(t.all.total_cpu_ns(), 8000u);
  const HotspotRow* solve = find(t.all, "solve");
  ASSERT_NE(solve, nullptr);
  EXPECT_EQ(solve->samples, 4u);  // 0x100, 0x110, 0x100, 0x120 share a function
  EXPECT_EQ(solve->cycles, 10000u);
  EXPECT_EQ(solve->instructions, 4000u);
  EXPECT_DOUBLE_EQ(solve->cpi(), 2.5);
  EXPECT_DOUBLE_EQ(solve->cpu_s(), 4e-6);

  EXPECT_EQ(t.inside.total_cpu_ns(), 5000u);
  EXPECT_EQ(t.compute.total_cpu_ns(), 3000u);
  EXPECT_EQ(t.mpi.total_cpu_ns(), 2000u);
  ASSERT_NE(find(t.compute, "solve"), nullptr);
  EXPECT_EQ(find(t.compute, "solve")->samples, 2u);
  EXPECT_EQ(find(t.compute, "exchange")->samples, 1u);
  EXPECT_EQ(find(t.compute, "MPI_Recv"), nullptr);
  ASSERT_EQ(t.mpi.size(), 1u);
  EXPECT_EQ(t.mpi.rows()[0].function, "MPI_Recv");
  EXPECT_EQ(t.mpi.rows()[0].module, "libmpi.so");
  EXPECT_DOUBLE_EQ(t.mpi.rows()[0].cpi(), 5.0);
  EXPECT_TRUE(t.compute.has_instructions);
}

// The path inside an MPI call is in one thread: another thread of the rank computing then (an
// OpenMP worker, a second MPI thread) is not on the path, neither inside MPI nor compute. In
// compute intervals every thread counts (a parallel region's workers are the path's work).
TEST(Hotspots, InsideAnMpiCallOnlyTheCallingThreadIsOnThePath) {
  std::vector<Sample> samples = {make(12, 0x100, 1000), make(13, 0x100, 1000), make(22, 0x300, 1000),
                                 make(23, 0x120, 1000), make(24, 0x300, 1000)};
  samples[1].tid = 2;  // a worker in the compute interval
  samples[3].tid = 2;  // the worker's solve while thread 1 is in MPI_Recv
  samples[4].tid = 2;  // the worker in MPI itself, another call
  TimeInterval mpi{20, 30, IntervalKind::mpi};
  mpi.tid = 1;
  const std::vector<TimeInterval> intervals = {{10, 20, IntervalKind::compute}, mpi};
  HotspotTables t;
  ASSERT_TRUE(aggregate_hotspots(samples, intervals, resolve, false, false, t));
  EXPECT_EQ(t.all.total_cpu_ns(), 5000u);
  EXPECT_EQ(t.compute.total_cpu_ns(), 2000u) << "both threads' samples in the compute interval";
  ASSERT_NE(find(t.mpi, "MPI_Recv"), nullptr);
  EXPECT_EQ(t.mpi.total_cpu_ns(), 1000u) << "only the calling thread's sample inside MPI";
  EXPECT_EQ(find(t.mpi, "solve"), nullptr) << "the worker's computation is not inside the path's MPI call";
  EXPECT_EQ(t.inside.total_cpu_ns(), 3000u);

  // Without the thread (0: a trace read back from a file) every sample in the interval counts.
  TimeInterval any{20, 30, IntervalKind::mpi};
  ASSERT_TRUE(aggregate_hotspots(samples, {{10, 20, IntervalKind::compute}, any}, resolve, false, false, t));
  EXPECT_EQ(t.mpi.total_cpu_ns(), 3000u);
}

TEST(Hotspots, UnsortedIntervalsAndNoIntervals) {
  const std::vector<Sample> samples = {make(15, 0x100, 10), make(25, 0x300, 20)};
  HotspotTables t;
  ASSERT_TRUE(aggregate_hotspots(samples, {{20, 30, IntervalKind::mpi}, {10, 20, IntervalKind::compute}},
                                 resolve, false, false, t));
  EXPECT_EQ(t.compute.total_cpu_ns(), 10u);
  EXPECT_EQ(t.mpi.total_cpu_ns(), 20u);

  ASSERT_TRUE(aggregate_hotspots(samples, {}, resolve, false, false, t));
  EXPECT_EQ(t.all.total_cpu_ns(), 30u);
  EXPECT_TRUE(t.inside.empty());
}

TEST(Hotspots, SoftwareSamplesHaveNoCounterColumns) {
  // cycles/instructions in the samples are ignored when not counted.
  HotspotTables t;
  ASSERT_TRUE(aggregate_hotspots({make(1, 0x100, 1000000, 7, 7)}, {}, resolve, false, false, t));
  EXPECT_FALSE(t.all.has_cycles);
  EXPECT_FALSE(t.all.has_instructions);
  EXPECT_EQ(t.all.rows()[0].cycles, 0u);
  EXPECT_EQ(t.all.rows()[0].cpi(), 0.0);
}

TEST(Hotspots, TopNSortedByCpuTime) {
  HotspotTable t;
  t.add("a", "m", 1, 100, 0, 0);
  t.add("b", "m", 1, 300, 0, 0);
  t.add("c", "m", 5, 200, 0, 0);
  t.add("d", "m", 9, 200, 0, 0);
  t.add("a", "other", 1, 50, 0, 0);  // same name, other module: its own row
  const auto top = t.top(3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].function, "b");
  EXPECT_EQ(top[1].function, "d");  // tie on cpu: more samples first
  EXPECT_EQ(top[2].function, "c");
  EXPECT_EQ(t.top(100).size(), 5u);
  EXPECT_TRUE(t.top(0).empty());
}

HotspotTable table_of(std::initializer_list<HotspotRow> rows, bool counters) {
  HotspotTable t;
  t.has_cycles = t.has_instructions = counters;
  for (const HotspotRow& r : rows) t.add(r.function, r.module, r.samples, r.cpu_ns, r.cycles, r.instructions);
  return t;
}

TEST(Hotspots, SerialiseRoundTripAndMergeOfTwoRanks) {
  const HotspotTable rank0 = table_of({{"solve", "app", 10, 10000000, 30000, 10000},
                                       {"MPI_Recv", "libmpi.so", 3, 3000000, 900, 300},
                                       {"x_solve_cell_", "bt.x", 1, 1000000, 10, 5}},
                                      true);
  const HotspotTable rank1 = table_of({{"solve", "app", 20, 20000000, 60000, 30000},
                                       {"MPI_Wait", "libmpi.so", 2, 2000000, 100, 100}},
                                      true);
  std::vector<uint8_t> b0, b1;
  ASSERT_TRUE(rank0.serialise(b0));
  ASSERT_TRUE(rank1.serialise(b1));
  EXPECT_LT(b0.size(), 100u);  // compact: module names once, varints

  HotspotTable r0, r1;
  ASSERT_TRUE(HotspotTable::deserialise(b0.data(), b0.size(), r0));
  ASSERT_TRUE(HotspotTable::deserialise(b1.data(), b1.size(), r1));
  std::vector<uint8_t> again;
  ASSERT_TRUE(r0.serialise(again));
  EXPECT_EQ(again, b0);

  r0.merge(r1);
  EXPECT_TRUE(r0.has_cycles);
  EXPECT_TRUE(r0.has_instructions);
  ASSERT_EQ(r0.size(), 4u);
  const HotspotRow* solve = find(r0, "solve");
  ASSERT_NE(solve, nullptr);
  EXPECT_EQ(solve->samples, 30u);
  EXPECT_EQ(solve->cpu_ns, 30000000u);
  EXPECT_EQ(solve->cycles, 90000u);
  EXPECT_EQ(solve->instructions, 40000u);
  EXPECT_EQ(r0.total_cpu_ns(), 36000000u);
  EXPECT_EQ(r0.top(1)[0].function, "solve");
}

TEST(Hotspots, MergeDropsCounterColumnsUnlessAllRanksHaveThem) {
  HotspotTable hw = table_of({{"f", "m", 1, 10, 5, 5}}, true);
  const HotspotTable sw = table_of({{"f", "m", 1, 10, 0, 0}}, false);
  const HotspotTable empty_sw;  // a rank without samples does not veto
  HotspotTable a = hw;
  a.merge(empty_sw);
  EXPECT_TRUE(a.has_instructions);
  a.merge(sw);
  EXPECT_FALSE(a.has_instructions);
  EXPECT_FALSE(a.has_cycles);
  HotspotTable b;
  b.merge(hw);
  EXPECT_TRUE(b.has_cycles);
}

TEST(Hotspots, AllFourTablesRoundTripAndMerge) {
  HotspotTables a, b;
  ASSERT_TRUE(aggregate_hotspots({make(15, 0x100, 10, 1, 1), make(25, 0x300, 20, 1, 1)},
                                 {{10, 20, IntervalKind::compute}, {20, 30, IntervalKind::mpi}}, resolve,
                                 true, true, a));
  ASSERT_TRUE(aggregate_hotspots({make(26, 0x300, 40, 1, 1)}, {{20, 30, IntervalKind::mpi}}, resolve, true,
                                 true, b));
  std::vector<uint8_t> ba, bb;
  ASSERT_TRUE(a.serialise(ba));
  ASSERT_TRUE(b.serialise(bb));
  HotspotTables ra, rb;
  ASSERT_TRUE(HotspotTables::deserialise(ba.data(), ba.size(), ra));
  ASSERT_TRUE(HotspotTables::deserialise(bb.data(), bb.size(), rb));
  ra.merge(rb);
  EXPECT_EQ(ra.all.total_cpu_ns(), 70u);
  EXPECT_EQ(ra.inside.total_cpu_ns(), 70u);
  EXPECT_EQ(ra.compute.total_cpu_ns(), 10u);
  EXPECT_EQ(ra.mpi.total_cpu_ns(), 60u);
  EXPECT_EQ(find(ra.mpi, "MPI_Recv")->samples, 2u);
}

TEST(Hotspots, CorruptInputIsRejectedWithoutCrash) {
  const HotspotTable t = table_of({{"solve", "app", 10, 1000, 3, 1}, {"g", "lib", 1, 1, 1, 1}}, true);
  std::vector<uint8_t> good;
  ASSERT_TRUE(t.serialise(good));
  HotspotTable out = table_of({{"keep", "me", 1, 1, 0, 0}}, false);

  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_FALSE(HotspotTable::deserialise(good.data(), cut, out)) << "truncated at " << cut;
  std::vector<uint8_t> extra = good;
  extra.push_back(0);
  EXPECT_FALSE(HotspotTable::deserialise(extra.data(), extra.size(), out));
  std::vector<uint8_t> bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_FALSE(HotspotTable::deserialise(bad_magic.data(), bad_magic.size(), out));
  // Every single-byte corruption either fails cleanly or yields a table.
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> b = good;
    b[i] ^= 0xff;
    HotspotTable scratch;
    (void)HotspotTable::deserialise(b.data(), b.size(), scratch);
  }
  ASSERT_EQ(out.size(), 1u);  // untouched by failures
  EXPECT_EQ(out.rows()[0].function, "keep");
  const std::vector<uint8_t> huge_count = {'C', 'P', 'H', 'T', 1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f};
  EXPECT_FALSE(HotspotTable::deserialise(huge_count.data(), huge_count.size(), out));
}

}  // namespace
}  // namespace cpath::pmu
