#include "call_path.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <vector>


namespace cpath {

int g_call_path_mode = 0;

namespace {

struct Range {
  uintptr_t lo, hi;
};
std::vector<Range> g_skip;  // code ranges of the skipped libraries (set once, before recording)
int g_depth = 1;            // frames looked at above the wrapper's caller
constexpr int kMaxWalk = 64;

// libunwind is opened only when asked for, RTLD_LOCAL: linked in, its _Unwind_* and backtrace
// symbols would interpose on the application's C++ exception handling.
using BacktraceFn = int (*)(void**, int);
using CachingFn = int (*)(void*, int);
BacktraceFn g_backtrace = nullptr;
constexpr int kUnwCachePerThread = 2;  // UNW_CACHE_PER_THREAD of libunwind.h

bool skipped(uintptr_t ip) {
  for (const Range& r : g_skip)
    if (ip >= r.lo && ip < r.hi) return true;
  return false;
}

int add_ranges(dl_phdr_info* info, size_t, void* data) {
  const auto* names = static_cast<const std::vector<std::string>*>(data);
  const char* path = info->dlpi_name ? info->dlpi_name : "";
  const char* slash = std::strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  bool match = false;
  for (const std::string& n : *names) match = match || (!n.empty() && std::strncmp(base, n.c_str(), n.size()) == 0);
  if (!match) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
    const uintptr_t lo = info->dlpi_addr + p.p_vaddr;
    g_skip.push_back(Range{lo, lo + p.p_memsz});
  }
  return 0;
}

}  // namespace

const void* call_site_walk(const void* ra) {
  void* fr[kMaxWalk];
  const int n = g_backtrace(fr, g_depth + 8 < kMaxWalk ? g_depth + 8 : kMaxWalk);
  int i = 0;
  while (i < n && fr[i] != ra) ++i;  // the wrapper's caller (frames above are libcpath's)
  if (i == n) return ra;
  const int last = i + g_depth < n ? i + g_depth : n;
  while (i < last && skipped(reinterpret_cast<uintptr_t>(fr[i]))) ++i;
  return i < last ? fr[i] : ra;
}

std::string call_path_setup(int stack, const std::string& skip) {
  std::vector<std::string> names;
  size_t b = 0;
  while (b <= skip.size()) {
    size_t e = skip.find_first_of(":+", b);
    if (e == std::string::npos) e = skip.size();
    if (e > b) names.push_back(skip.substr(b, e - b));
    b = e + 1;
  }
  g_call_path_mode = 0;
  // Without skip= the walk would end at the return address anyway (no frame is skipped, and
  // call sites are not grouped by path yet): stack= alone would cost a walk per MPI call for
  // the same report.
  if (names.empty()) return stack > 1 ? "stack= has no effect without skip= (call paths are not grouped yet)" : "";
  void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "skip=/stack= need libunwind (libunwind8), which is not installed: call sites are return addresses";
  g_backtrace = reinterpret_cast<BacktraceFn>(dlsym(lib, "unw_backtrace"));
  auto caching = reinterpret_cast<CachingFn>(dlsym(lib, "_ULx86_64_set_caching_policy"));
  auto space = static_cast<void**>(dlsym(lib, "_ULx86_64_local_addr_space"));
  if (!g_backtrace) return "skip=/stack=: libunwind has no unw_backtrace: call sites are return addresses";
  // The per-thread cache avoids the signal-mask system calls of the default policy.
  if (caching && space) caching(*space, kUnwCachePerThread);
  g_skip.clear();
  dl_iterate_phdr(add_ranges, &names);
  // Frames to look through: the requested depth, and always enough to get out of a library.
  g_depth = stack > 1 ? stack + 16 : 17;
  if (g_depth > kMaxWalk) g_depth = kMaxWalk;
  g_call_path_mode = 1;
  if (!names.empty() && g_skip.empty()) return "skip=" + skip + ": no loaded library matches; call sites are return addresses";
  return "";
}

}  // namespace cpath
