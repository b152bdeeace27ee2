#include "pmu/module_map.h"

#include <link.h>
#include <unistd.h>

#include <time.h>

#include <climits>
#include <algorithm>
#include <cstring>
#include <mutex>

namespace cpath::pmu {
namespace {

std::string executable_path() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<size_t>(n));
}

int collect_one(dl_phdr_info* info, void* arg) {
  auto& out = *static_cast<std::vector<ModuleMapEntry>*>(arg);
  uint64_t lo = UINT64_MAX, hi = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
    lo = std::min<uint64_t>(lo, ph.p_vaddr & ~(align - 1));
    hi = std::max<uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
  }
  if (lo == UINT64_MAX) return 0;
  ModuleMapEntry e;
  // The main program comes first with an empty name.
  e.path = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' ? info->dlpi_name
           : out.empty()                                              ? executable_path()
                                                                      : std::string();
  // "linux-vdso.so.1" has no file behind it.
  if (e.path.empty() || e.path.find('/') == std::string::npos) return 0;
  e.base = info->dlpi_addr + lo;
  e.size = hi - lo;
  e.bias = info->dlpi_addr;
  out.push_back(std::move(e));
  return 0;
}

// Exceptions must not unwind through dl_iterate_phdr: it holds the loader lock.
int collect(dl_phdr_info* info, size_t, void* arg) {
  try {
    return collect_one(info, arg);
  } catch (...) {
    return 1;
  }
}

}  // namespace

std::vector<ModuleMapEntry> current_module_map() noexcept {
  std::vector<ModuleMapEntry> out;
  dl_iterate_phdr(collect, &out);
  return out;
}

namespace {
std::mutex g_unloaded_mu;
std::vector<UnloadedModule>* g_unloaded = nullptr;  // never freed: a dlclose may come at exit
}  // namespace

void note_unloaded(const std::vector<ModuleMapEntry>& before) noexcept {
  try {
    const std::vector<ModuleMapEntry> after = current_module_map();
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    const uint64_t now = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    std::lock_guard<std::mutex> lock(g_unloaded_mu);
    if (g_unloaded == nullptr) g_unloaded = new std::vector<UnloadedModule>;
    for (const ModuleMapEntry& m : before) {
      const bool stays = std::any_of(after.begin(), after.end(), [&](const ModuleMapEntry& a) {
        return a.base == m.base && a.bias == m.bias && a.path == m.path;
      });
      if (!stays && g_unloaded->size() < kMaxUnloaded) g_unloaded->push_back(UnloadedModule{m, now});
    }
  } catch (...) {
  }
}

std::vector<UnloadedModule> unloaded_modules() noexcept {
  try {
    std::lock_guard<std::mutex> lock(g_unloaded_mu);
    return g_unloaded ? *g_unloaded : std::vector<UnloadedModule>{};
  } catch (...) {
    return {};
  }
}

void clear_unloaded() noexcept {
  std::lock_guard<std::mutex> lock(g_unloaded_mu);
  if (g_unloaded) g_unloaded->clear();
}

}  // namespace cpath::pmu
