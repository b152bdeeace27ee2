// Symbolisation with libdwfl: a static function of this PIE, functions of a
// dlopen'ed module with and without symbols, and addresses outside modules.
#include "pmu/symbolizer.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

// At global scope on purpose: a plain C++ static function, not exported.
static __attribute__((noinline)) int pie_static_function(int x) {
  asm volatile("" ::: "memory");
  return x * 5 + 3;
}

namespace cpath::pmu {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string base_name(const std::string& p) { return p.substr(p.rfind('/') + 1); }

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

uint64_t main_program_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;  // the main program comes first
      },
      &bias);
  return bias;
}

TEST(PmuSymbolizer, NamesAreDemangledAsUsersWriteThem) {
  EXPECT_EQ(demangle_symbol("_Z19pie_static_functioni"), "pie_static_function(int)");
  EXPECT_EQ(demangle_symbol("__tea_leaf_cg_kernel_module_MOD_tea_leaf_cg_calc_ur_kernel"),
            "tea_leaf_cg_kernel_module::tea_leaf_cg_calc_ur_kernel");
  EXPECT_EQ(demangle_symbol("__dim3_sweep_module_MOD_dim3_sweep"), "dim3_sweep_module::dim3_sweep");
  // Not module procedures: kept.
  EXPECT_EQ(demangle_symbol("x_solve_cell_"), "x_solve_cell_");
  EXPECT_EQ(demangle_symbol("__libc_start_main"), "__libc_start_main");
  EXPECT_EQ(demangle_symbol("___MOD_x"), "___MOD_x");
  EXPECT_EQ(demangle_symbol("__m_MOD_"), "__m_MOD_");
  EXPECT_EQ(demangle_symbol("_Zbroken"), "_Zbroken");
}

TEST(Symbolizer, StaticFunctionInPieExecutable) {
  Elf64_Ehdr eh{};
  std::ifstream("/proc/self/exe", std::ios::binary).read(reinterpret_cast<char*>(&eh), sizeof(eh));
  ASSERT_EQ(eh.e_type, ET_DYN) << "the test binary must be linked -pie";
  ASSERT_EQ(pie_static_function(1), 8);

  const uint64_t addr = addr_of(reinterpret_cast<const void*>(&pie_static_function)) + 1;
  Symbolizer sym = Symbolizer::from_current_process();
  ASSERT_TRUE(sym.ok()) << sym.error();
  const SymbolInfo& info = sym.lookup(addr);
  EXPECT_EQ(info.function, "pie_static_function(int)");  // from .symtab, demangled
  EXPECT_TRUE(info.has_symbol);
  EXPECT_EQ(info.module, "pmu_symbolizer_test");
  EXPECT_TRUE(ends_with(info.file, "pmu_symbolizer_test.cpp")) << info.file;
  EXPECT_GT(info.line, 0u);
  EXPECT_EQ(info.offset, addr - main_program_bias());

  // Same answer offline from an explicit module map.
  Symbolizer offline = Symbolizer::from_module_map(current_module_map());
  const SymbolInfo& again = offline.lookup(addr);
  EXPECT_EQ(again.function, info.function);
  EXPECT_EQ(again.module, info.module);
  EXPECT_EQ(again.offset, info.offset);
  EXPECT_EQ(again.line, info.line);
}

TEST(Symbolizer, LookupsAreCached) {
  Symbolizer sym = Symbolizer::from_current_process();
  const uint64_t addr = addr_of(reinterpret_cast<const void*>(&pie_static_function));
  EXPECT_EQ(&sym.lookup(addr), &sym.lookup(addr));
}

struct Fixture {
  void* handle = nullptr;
  uint64_t exported = 0, static_fn = 0, mangled = 0, fortran = 0;
  explicit Fixture(const char* path) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return;
    exported = addr_of(dlsym(handle, "pmu_fixture_exported"));
    mangled = addr_of(dlsym(handle, "_ZN11pmu_fixture16mangled_functionEi"));
    fortran = addr_of(dlsym(handle, "x_solve_cell_"));
    auto get_static = reinterpret_cast<void* (*)()>(dlsym(handle, "pmu_fixture_static_address"));
    static_fn = get_static != nullptr ? addr_of(get_static()) : 0;
  }
  ~Fixture() {
    if (handle != nullptr) dlclose(handle);
  }
};

TEST(Symbolizer, DlopenedModuleWithSymbols) {
  Fixture lib(PMU_FIXTURE_LIB);
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  ASSERT_NE(lib.static_fn, 0u);
  const std::string module = base_name(PMU_FIXTURE_LIB);

  Symbolizer sym = Symbolizer::from_current_process();
  const SymbolInfo& e = sym.lookup(lib.exported + 2);
  EXPECT_EQ(e.function, "pmu_fixture_exported");
  EXPECT_EQ(e.module, module);
  EXPECT_TRUE(ends_with(e.file, "pmu_fixture_lib.cpp")) << e.file;
  EXPECT_GT(e.line, 0u);

  const SymbolInfo& s = sym.lookup(lib.static_fn + 1);
  EXPECT_EQ(s.function, "fixture_static_function(int)");
  EXPECT_EQ(s.module, module);
  EXPECT_TRUE(s.has_symbol);

  EXPECT_EQ(sym.lookup(lib.mangled).function, "pmu_fixture::mangled_function(int)");
  EXPECT_EQ(sym.lookup(lib.fortran).function, "x_solve_cell_");

  // Offline, from the module map taken while the module is loaded.
  Symbolizer offline = Symbolizer::from_module_map(current_module_map());
  EXPECT_EQ(offline.lookup(lib.static_fn + 1).function, "fixture_static_function(int)");
  EXPECT_EQ(offline.lookup(lib.static_fn + 1).offset, s.offset);
}

// Source lines from a separate debug file named by .gnu_debuglink (beside the module): found
// locally, by our own search, without libdw's standard callback (which would load the
// debuginfod client).
TEST(Symbolizer, DebugInfoThroughDebuglink) {
  Fixture lib(PMU_FIXTURE_LIB_DEBUGLINK);
  ASSERT_NE(lib.handle, nullptr) << dlerror();
  Symbolizer sym = Symbolizer::from_current_process();
  const SymbolInfo& e = sym.lookup(lib.exported + 2);
  EXPECT_EQ(e.function, "pmu_fixture_exported");
  EXPECT_TRUE(ends_with(e.file, "pmu_fixture_lib.cpp")) << "no line information: " << e.file;
  EXPECT_GT(e.line, 0u);
  EXPECT_EQ(sym.lookup(lib.static_fn + 1).function, "fixture_static_function(int)");
}

// Documented behaviour for stripped modules: exported functions keep their
// .dynsym name (demangled if C++), everything else is "module+0xOFFSET" with
// the same ELF offset the unstripped build has; never a wrong neighbour.
TEST(Symbolizer, StrippedModule) {
  Fixture full(PMU_FIXTURE_LIB);
  Fixture stripped(PMU_FIXTURE_LIB_STRIPPED);
  ASSERT_NE(full.handle, nullptr);
  ASSERT_NE(stripped.handle, nullptr) << dlerror();
  const std::string module = base_name(PMU_FIXTURE_LIB_STRIPPED);

  Symbolizer sym = Symbolizer::from_current_process();
  const SymbolInfo& e = sym.lookup(stripped.exported + 2);
  EXPECT_EQ(e.function, "pmu_fixture_exported");
  EXPECT_TRUE(e.has_symbol);
  EXPECT_EQ(e.module, module);
  EXPECT_EQ(e.file, "");
  EXPECT_EQ(e.line, 0u);
  EXPECT_EQ(sym.lookup(stripped.mangled).function, "pmu_fixture::mangled_function(int)");

  const SymbolInfo& s = sym.lookup(stripped.static_fn + 1);
  const uint64_t expected_offset = sym.lookup(full.static_fn + 1).offset;
  EXPECT_FALSE(s.has_symbol);
  EXPECT_EQ(s.module, module);
  EXPECT_EQ(s.offset, expected_offset);
  char want[128];
  std::snprintf(want, sizeof(want), "%s+0x%llx", module.c_str(),
                static_cast<unsigned long long>(expected_offset));
  EXPECT_EQ(s.function, want);
}

TEST(Symbolizer, UnknownAddresses) {
  Symbolizer sym = Symbolizer::from_current_process();
  const SymbolInfo& low = sym.lookup(0x10);
  EXPECT_EQ(low.function, "[unknown]");
  EXPECT_EQ(low.module, "[unknown]");
  EXPECT_FALSE(low.has_symbol);

  int on_stack = 0;
  EXPECT_EQ(sym.lookup(addr_of(&on_stack)).function, "[unknown]");

  // A module map whose file is gone: module+offset from the map itself.
  Symbolizer offline = Symbolizer::from_module_map({{"/nonexistent/dir/libgone.so", 0x7f0000000000, 0x20000}});
  EXPECT_FALSE(offline.error().empty());
  const SymbolInfo& gone = offline.lookup(0x7f0000001234);
  EXPECT_EQ(gone.function, "libgone.so+0x1234");
  EXPECT_EQ(gone.module, "libgone.so");
  EXPECT_EQ(gone.offset, 0x1234u);
  EXPECT_EQ(offline.lookup(0x7f0000020000).function, "[unknown]");  // one past the end
}

TEST(Symbolizer, MovedFromSymbolizerAnswersUnknown) {
  Symbolizer a = Symbolizer::from_current_process();
  Symbolizer b = std::move(a);
  EXPECT_TRUE(b.ok());
  EXPECT_EQ(a.lookup(0x1234).function, "[unknown]");  // NOLINT(bugprone-use-after-move)
}

TEST(Symbolizer, NoNetworkDebuginfoUnlessAllowed) {
  Fixture stripped(PMU_FIXTURE_LIB_STRIPPED);
  ASSERT_NE(stripped.handle, nullptr);
  // A closed local port: a debuginfod query fails fast but is visible in
  // the client's verbose output.
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1);
  setenv("DEBUGINFOD_VERBOSE", "1", 1);
  setenv("DEBUGINFOD_CACHE_PATH", "/tmp/pmu_symbolizer_test_debuginfod_cache", 1);

  testing::internal::CaptureStderr();
  {
    SymbolizerOptions allow;
    allow.allow_debuginfod = true;
    Symbolizer sym = Symbolizer::from_current_process(allow);
    sym.lookup(stripped.static_fn);
  }
  const std::string with = testing::internal::GetCapturedStderr();

  testing::internal::CaptureStderr();
  const auto t0 = std::chrono::steady_clock::now();
  {
    Symbolizer sym = Symbolizer::from_current_process();
    EXPECT_FALSE(sym.lookup(stripped.static_fn).has_symbol);
  }
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  const std::string without = testing::internal::GetCapturedStderr();
  unsetenv("DEBUGINFOD_URLS");
  unsetenv("DEBUGINFOD_VERBOSE");
  unsetenv("DEBUGINFOD_CACHE_PATH");

  std::filesystem::remove_all("/tmp/pmu_symbolizer_test_debuginfod_cache");

  EXPECT_EQ(without.find("debuginfod"), std::string::npos) << without;
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  // The check above only means something if libdw would query debuginfod
  // when allowed, which it does whenever the client library is installed.
  if (void* client = dlopen("libdebuginfod.so.1", RTLD_LAZY)) {
    dlclose(client);
    EXPECT_NE(with.find("debuginfod"), std::string::npos) << with;
  }
}

}  // namespace
}  // namespace cpath::pmu
