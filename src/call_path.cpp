#include "call_path.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace cpath {

int g_call_path_mode = 0;

namespace {

struct Range {
  uintptr_t lo, hi;
};
std::vector<Range> g_skip;  // code ranges of the skipped libraries (set once, before recording)
int g_depth = 1;            // mode 1: frames looked at above the wrapper's caller
constexpr int kMaxWalk = 64;

// Mode 2. The table is sized once at MPI_Init so that interning never reallocates under a
// reader: paths are published by g_count (release) and never change afterwards.
int g_keep = 1;  // frames kept per path (stack=)
int g_walk = 1;  // frames asked from libunwind: ours, the kept ones, and skipped ones between
constexpr uint32_t kMaxPaths = 8192;
constexpr uint32_t kIndexSlots = 2 * kMaxPaths;  // open addressing, at most half full
uint64_t* g_frames = nullptr;                    // kMaxPaths x g_keep
uint8_t* g_lens = nullptr;
uint32_t* g_index = nullptr;  // path number or 0, by hash
std::atomic<uint32_t> g_count{0};
std::atomic<uint64_t> g_overflow{0};
std::mutex g_mu;  // taken only when a thread meets a path its cache does not hold

// Per-thread, two-way set-associative: unique call paths are few, so after the first calls
// every walk finds its path here without a lock; two ways, so that two paths a loop alternates
// between that fall in one set do not take the lock on every call. Allocated on the thread's
// first walk.
struct CacheEntry {
  uint64_t hash;
  uint32_t id;
};
constexpr uint32_t kCacheSlots = 1024;
__thread CacheEntry* t_cache __attribute__((tls_model("initial-exec"))) = nullptr;

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

uint64_t hash_path(const uint64_t* p, int n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(n);
  for (int i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
  }
  return h | 1;  // an empty cache slot (hash 0) never matches
}

bool same_path(uint32_t id, const uint64_t* p, int n) {
  if (g_lens[id - 1] != n) return false;
  const uint64_t* f = g_frames + static_cast<size_t>(id - 1) * g_keep;
  for (int i = 0; i < n; ++i)
    if (f[i] != p[i]) return false;
  return true;
}

uint32_t intern(uint64_t h, const uint64_t* p, int n) {
  std::lock_guard<std::mutex> lock(g_mu);
  uint32_t s = static_cast<uint32_t>(h) & (kIndexSlots - 1);
  for (; g_index[s]; s = (s + 1) & (kIndexSlots - 1))
    if (same_path(g_index[s], p, n)) return g_index[s];
  const uint32_t c = g_count.load(std::memory_order_relaxed);
  if (c >= kMaxPaths) return 0;
  std::memcpy(g_frames + static_cast<size_t>(c) * g_keep, p, sizeof(uint64_t) * static_cast<size_t>(n));
  g_lens[c] = static_cast<uint8_t>(n);
  g_count.store(c + 1, std::memory_order_release);
  g_index[s] = c + 1;
  return c + 1;
}

uintptr_t path_number(const void* ra) {
  void* fr[kMaxWalk];
  const int n = g_backtrace(fr, g_walk);
  int i = 0;
  while (i < n && fr[i] != ra) ++i;  // the wrapper's caller (frames above are libcpath's)
  uint64_t p[kMaxWalk];
  int k = 0;
  for (; i < n && k < g_keep; ++i)
    if (!skipped(reinterpret_cast<uintptr_t>(fr[i]))) p[k++] = reinterpret_cast<uintptr_t>(fr[i]);
  if (k == 0) p[k++] = reinterpret_cast<uintptr_t>(ra);
  const uint64_t h = hash_path(p, k);
  if (__builtin_expect(t_cache == nullptr, 0))
    t_cache = static_cast<CacheEntry*>(std::calloc(kCacheSlots, sizeof(CacheEntry)));
  CacheEntry* set = t_cache ? &t_cache[h & (kCacheSlots - 2)] : nullptr;
  if (set) {
    if (set[0].hash == h && same_path(set[0].id, p, k)) return set[0].id;
    if (set[1].hash == h && same_path(set[1].id, p, k)) return set[1].id;
  }
  const uint32_t id = intern(h, p, k);
  if (id == 0) {
    g_overflow.fetch_add(1, std::memory_order_relaxed);
  } else if (set) {
    set[1] = set[0];  // the newest path in way 0, the one before it kept in way 1
    set[0] = CacheEntry{h, id};
  }
  return id;
}

}  // namespace

CallPaths call_path_snapshot() {
  CallPaths c;
  if (g_call_path_mode != 2) return c;
  std::lock_guard<std::mutex> lock(g_mu);
  const uint32_t n = g_count.load(std::memory_order_acquire);
  c.depth = static_cast<uint32_t>(g_keep);
  c.begin.reserve(n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t* f = g_frames + static_cast<size_t>(i) * g_keep;
    c.frames.insert(c.frames.end(), f, f + g_lens[i]);
    c.begin.push_back(static_cast<uint32_t>(c.frames.size()));
  }
  return c;
}

uint64_t call_paths_overflowed() { return g_overflow.load(std::memory_order_relaxed); }

const uint64_t* call_path_raw(uint32_t* depth, uint32_t* n, const uint8_t** lens) {
  *depth = g_call_path_mode == 2 ? static_cast<uint32_t>(g_keep) : 0;
  *n = *depth ? g_count.load(std::memory_order_acquire) : 0;
  *lens = g_lens;
  return g_frames;
}

const void* call_site_walk(const void* ra) {
  if (g_call_path_mode == 2) return reinterpret_cast<const void*>(path_number(ra));
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
  if (names.empty() && stack <= 1) return "";
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
  if (!names.empty()) dl_iterate_phdr(add_ranges, &names);
  const bool unmatched = !names.empty() && g_skip.empty();
  if (stack <= 1) {
    // Frames to look through: always enough to get out of a library.
    g_depth = 17;
    g_call_path_mode = 1;
    return unmatched ? "skip=" + skip + ": no loaded library matches; call sites are return addresses" : "";
  }
  if (!g_frames) {
    g_frames = static_cast<uint64_t*>(std::calloc(static_cast<size_t>(kMaxPaths) * stack, sizeof(uint64_t)));
    g_lens = static_cast<uint8_t*>(std::calloc(kMaxPaths, 1));
    g_index = static_cast<uint32_t*>(std::calloc(kIndexSlots, sizeof(uint32_t)));
    if (!g_frames || !g_lens || !g_index) return "stack=: no memory for the call-path table; call sites are return addresses";
    g_keep = stack;
  }
  // Above the caller's frame: the kept frames, and up to 16 skipped library frames among them.
  // Below it: this function's and the wrapper's frames (a few more in case of inlining).
  g_walk = stack + 6 + (g_skip.empty() ? 0 : 16);
  if (g_walk > kMaxWalk) g_walk = kMaxWalk;
  g_call_path_mode = 2;
  return unmatched ? "skip=" + skip + ": no loaded library matches; call paths include every frame" : "";
}

}  // namespace cpath
