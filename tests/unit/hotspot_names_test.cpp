// How sampled functions are named in the hotspot tables (analysis/hotspot_names.h) and how the
// aggregation shows time inside MPI per call in the combined table (pmu/hotspots.h, labels).
#include "hotspot_names.h"

#include <gtest/gtest.h>

namespace cpath {
namespace {

TEST(HotspotNames, ClonesOfOneFunctionAreOneName) {
  EXPECT_EQ(strip_clone_suffix("fftz2_.constprop.0"), "fftz2_");
  EXPECT_EQ(strip_clone_suffix("binvcrhs_.isra.0"), "binvcrhs_");
  EXPECT_EQ(strip_clone_suffix("x_solve_cell_.part.0"), "x_solve_cell_");
  EXPECT_EQ(strip_clone_suffix("exchange_1_.cold"), "exchange_1_");
  EXPECT_EQ(strip_clone_suffix("f.part.0.constprop.3"), "f");
  EXPECT_EQ(strip_clone_suffix("g.lto_priv.0"), "g");
  EXPECT_EQ(strip_clone_suffix("ns::solve(int) [clone .constprop.0] [clone .isra.0]"), "ns::solve(int)");
  EXPECT_EQ(strip_clone_suffix("__pthread_mutex_lock@GLIBC_2.2.5"), "__pthread_mutex_lock");
  EXPECT_EQ(strip_clone_suffix("memcpy@@GLIBC_2.14"), "memcpy");
  // Not clones: kept as they are.
  EXPECT_EQ(strip_clone_suffix("solve"), "solve");
  EXPECT_EQ(strip_clone_suffix("a.b"), "a.b");
  EXPECT_EQ(strip_clone_suffix("v.0"), "v.0");
  EXPECT_EQ(strip_clone_suffix("__mod_MOD_part"), "__mod_MOD_part");
}

TEST(HotspotNames, EverySpellingOfAWrappedCallIsTheCall) {
  for (const char* s : {"MPI_Send", "mpi_send_", "mpi_send__", "mpi_send", "MPI_SEND", "mpi_send_f08_", "mpi_send_f08",
                        "PMPI_Send", "pmpi_send_"})
    EXPECT_EQ(canonical_mpi_name(s), "MPI_Send") << s;
  EXPECT_EQ(canonical_mpi_name("mpi_irecv__"), "MPI_Irecv");
  EXPECT_EQ(canonical_mpi_name("MPI_IRECV"), "MPI_Irecv");
  EXPECT_EQ(canonical_mpi_name("mpi_allreduce_f08ts_"), "MPI_Allreduce");
  EXPECT_EQ(canonical_mpi_name("mpi_waitall_"), "MPI_Waitall");
  EXPECT_EQ(canonical_mpi_name("memcpy"), "");
  EXPECT_EQ(canonical_mpi_name("mpi_not_a_call_"), "");
  EXPECT_EQ(canonical_mpi_name(""), "");
}

pmu::SymbolInfo sym(const std::string& function, const std::string& module, bool has_symbol = true) {
  pmu::SymbolInfo s;
  s.function = function;
  s.module = module;
  s.has_symbol = has_symbol;
  return s;
}

TEST(HotspotNames, RowKeys) {
  // libcpath's own Fortran wrapper: the call it wraps, counted as MPI.
  pmu::FunctionKey k = hotspot_key(sym("mpi_send_", "libcpath.so"), true);
  EXPECT_EQ(k.function, "MPI_Send");
  EXPECT_EQ(k.mpi_call, "MPI_Send");
  EXPECT_EQ(k.module, "libcpath.so");
  k = hotspot_key(sym("MPI_IRECV", "libcpath.so"), true);
  EXPECT_EQ(k.function, "MPI_Irecv");
  // Other code of the library: one row, still part of some MPI call.
  k = hotspot_key(sym("_ZN5cpath11ThreadState4growEv", "libcpath.so"), true);
  EXPECT_EQ(k.function, "[libcpath]");
  EXPECT_TRUE(k.mpi_call.empty());
  EXPECT_TRUE(k.tool);
  // The application's own mpi_-looking function is left alone.
  k = hotspot_key(sym("mpi_send_", "app"), false);
  EXPECT_EQ(k.function, "mpi_send_");
  EXPECT_TRUE(k.mpi_call.empty());
  // Stripped module: one row per module.
  k = hotspot_key(sym("mca_btl_vader.so+0x4f94", "mca_btl_vader.so", false), false);
  EXPECT_EQ(k.function, "[unknown]");
  EXPECT_EQ(k.module, "mca_btl_vader.so");
  EXPECT_EQ(hotspot_key(sym("mca_btl_vader.so+0x1234", "mca_btl_vader.so", false), false).function, k.function);
  // Clones merge.
  EXPECT_EQ(hotspot_key(sym("fftz2_.constprop.0", "ft.x"), false).function, "fftz2_");
}

pmu::Sample sample(uint64_t t, uint64_t ip) {
  pmu::Sample s;
  s.time_ns = t;
  s.ip = ip;
  s.weight_ns = 1000;
  return s;
}

const pmu::HotspotRow* row(const pmu::HotspotTable& t, const std::string& f) {
  for (const pmu::HotspotRow& r : t.rows())
    if (r.function == f) return &r;
  return nullptr;
}

TEST(HotspotNames, InsideMpiReadsAsTheCallInTheCombinedTable) {
  // [10,20) compute, [20,30) inside MPI_Send (label 1), [30,40) compute.
  const std::vector<pmu::TimeInterval> iv = {
      {10, 20, pmu::IntervalKind::compute, 0}, {20, 30, pmu::IntervalKind::mpi, 1}, {30, 40, pmu::IntervalKind::compute, 0}};
  const std::vector<std::string> labels = {"", "MPI_Send", "MPI_Recv"};
  // 0x1: application compute; 0x2: __sched_yield in libc; 0x3: libcpath's mpi_recv_ wrapper.
  auto resolve = [](uint64_t ip) {
    if (ip == 1) return hotspot_key(sym("solve", "app"), false);
    if (ip == 2) return hotspot_key(sym("__sched_yield", "libc.so.6"), false);
    return hotspot_key(sym("mpi_recv_", "libcpath.so"), true);
  };
  const std::vector<pmu::Sample> samples = {sample(12, 1), sample(22, 2), sample(25, 2), sample(35, 3), sample(36, 1)};
  pmu::HotspotTables t;
  ASSERT_TRUE(pmu::aggregate_hotspots(samples, iv, resolve, false, false, t, labels));
  // Combined table: MPI time per call, no libc detail.
  ASSERT_NE(row(t.inside, "inside MPI_Send"), nullptr);
  EXPECT_EQ(row(t.inside, "inside MPI_Send")->samples, 2u);
  EXPECT_EQ(row(t.inside, "inside MPI_Send")->module, "(MPI)");
  EXPECT_EQ(row(t.inside, "__sched_yield"), nullptr);
  // The wrapper's sample falls in a compute interval by time, but belongs to its MPI call.
  ASSERT_NE(row(t.inside, "inside MPI_Recv"), nullptr);
  EXPECT_EQ(row(t.compute, "MPI_Recv"), nullptr);
  ASSERT_NE(row(t.mpi, "MPI_Recv"), nullptr);
  // Detail stays in the inside-MPI table; compute keeps the application.
  ASSERT_NE(row(t.mpi, "__sched_yield"), nullptr);
  EXPECT_EQ(row(t.mpi, "__sched_yield")->samples, 2u);
  ASSERT_NE(row(t.compute, "solve"), nullptr);
  EXPECT_EQ(row(t.compute, "solve")->samples, 2u);
  EXPECT_EQ(row(t.inside, "solve")->samples, 2u);
}

// The library's own code outside its wrappers, sampled between two calls (a compute interval
// by time): the tool's per-call cost, never a compute hotspot of the application (a '[libcpath]'
// row in lu_wavefront's compute table, once in a CI run).
TEST(HotspotNames, ToolCodeBetweenCallsIsNotCompute) {
  const std::vector<pmu::TimeInterval> iv = {{10, 20, pmu::IntervalKind::compute, 0}};
  const std::vector<std::string> labels = {""};
  auto resolve = [](uint64_t ip) {
    return ip == 1 ? hotspot_key(sym("solve", "app"), false)
                   : hotspot_key(sym("_ZN5cpath11ThreadState4growEv", "libcpath.so"), true);
  };
  const std::vector<pmu::Sample> samples = {sample(12, 1), sample(15, 2)};
  pmu::HotspotTables t;
  ASSERT_TRUE(pmu::aggregate_hotspots(samples, iv, resolve, false, false, t, labels));
  EXPECT_EQ(row(t.compute, "[libcpath]"), nullptr);
  ASSERT_NE(row(t.mpi, "[libcpath]"), nullptr);
  ASSERT_NE(row(t.compute, "solve"), nullptr);
}

}  // namespace
}  // namespace cpath
