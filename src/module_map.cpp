#include "module_map.h"

#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

namespace cpath {

static int on_module(dl_phdr_info* info, size_t, void* data) {
  auto* mods = static_cast<std::vector<ModuleInfo>*>(data);
  ModuleInfo m;
  m.base = info->dlpi_addr;
  m.start = ~0ull;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    m.start = std::min<uint64_t>(m.start, info->dlpi_addr + ph.p_vaddr);
    m.end = std::max<uint64_t>(m.end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (m.start == ~0ull) return 0;
  m.path = info->dlpi_name ? info->dlpi_name : "";
  if (m.path.empty() && mods->empty()) {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) m.path.assign(buf, static_cast<size_t>(n));
  }
  if (m.path.empty()) return 0;  // vdso and friends
  mods->push_back(std::move(m));
  return 0;
}

ModuleMap ModuleMap::current_process() {
  ModuleMap mm;
  dl_iterate_phdr(on_module, &mm.mods_);
  mm.sort();
  return mm;
}

void ModuleMap::sort() {
  std::sort(mods_.begin(), mods_.end(), [](const ModuleInfo& a, const ModuleInfo& b) { return a.start < b.start; });
}

int ModuleMap::find(uint64_t addr) const {
  auto it = std::upper_bound(mods_.begin(), mods_.end(), addr,
                             [](uint64_t a, const ModuleInfo& m) { return a < m.start; });
  if (it == mods_.begin()) return -1;
  --it;
  return addr < it->end ? static_cast<int>(it - mods_.begin()) : -1;
}

std::string basename_of(const std::string& path) {
  const size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace cpath
