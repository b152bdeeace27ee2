// Shared-library fixture for the symboliser tests; built once with symbols
// and debug info and once stripped (-s), then dlopen'ed.
#include <cstdint>

namespace pmu_fixture {

__attribute__((noinline, visibility("default"))) int mangled_function(int x) {
  asm volatile("" ::: "memory");
  return x * 3 + 1;
}

}  // namespace pmu_fixture

static __attribute__((noinline)) int fixture_static_function(int x) {
  asm volatile("" ::: "memory");
  return x * 7 - 2;
}

extern "C" {

// Fortran compilers emit lower-case names with a trailing underscore.
__attribute__((noinline, visibility("default"))) int x_solve_cell_(int* n) {
  asm volatile("" ::: "memory");
  return *n + 5;
}

__attribute__((noinline, visibility("default"))) int pmu_fixture_exported(int x) {
  return fixture_static_function(x) + pmu_fixture::mangled_function(x);
}

__attribute__((visibility("default"))) void* pmu_fixture_static_address() {
  return reinterpret_cast<void*>(&fixture_static_function);
}

}  // extern "C"
