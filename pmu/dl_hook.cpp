// Interposes dlclose. Samples keep raw addresses and are symbolised at MPI_Finalize, against
// the modules loaded then: a plugin dlclose'd before was named after whatever the loader put
// at its address later (a helper's probe: 0.80 s of one plugin's function reported as the
// 0.04 s function of the plugin loaded in its place), or "[unknown]" when nothing was. While
// the sampler runs, each dlclose notes the modules it unloaded, and when (module_map.h).
#include <dlfcn.h>

#include <atomic>

#include "pmu/module_map.h"
#include "pmu/next_symbol.h"
#include "pmu/sampler.h"

namespace {
using DlcloseFn = int (*)(void*);
std::atomic<DlcloseFn> g_dlclose{nullptr};
}  // namespace

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
  const DlcloseFn real = cpath::pmu::detail::next_symbol(g_dlclose, "dlclose");
  if (real == nullptr) return -1;
  if (!cpath::pmu::detail::sampler_wants_new_threads()) return real(handle);
  // Two walks of the loader's list (a few microseconds) per dlclose, only while sampling.
  const std::vector<cpath::pmu::ModuleMapEntry> before = cpath::pmu::current_module_map();
  const int rc = real(handle);
  if (rc == 0) cpath::pmu::note_unloaded(before);
  return rc;
}
