// The region API of include/cpath.h as libcpath.so implements it (the stub library's versions
// do nothing). Same budget as a wrapped MPI call: one TLS load, one clock read, a probe of a
// small per-thread cache keyed by the name's address (checked against the stored copy, since
// a buffer may be reused for another name), one record appended (region_record.h). Names are
// copied and numbered per thread on a cache miss only; they become strings at finalize.
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

#include "clock.h"
#include "cpath.h"
#include "export.h"
#include "record_writer.h"
#include "region_record.h"
#include "thread_state.h"
#include "trace_store.h"
#include "varint.h"

namespace cpath {

namespace {

constexpr unsigned kSlots = 32;

struct Slot {
  const char* ptr = nullptr;
  const char* text = nullptr;  // the interned copy
  uint32_t len = 0;
  uint32_t id = 0;
};

struct ThreadRegions {
  const ThreadState* owner = nullptr;
  Slot slot[kSlots];
  std::unordered_map<std::string, uint32_t> ids;  // miss path only
  // Reused by every lookup: a miss on a known name (slot collision) allocates nothing once
  // the key has grown to the longest name; only a new name copies it, into the map.
  std::string key;
};

__thread ThreadRegions* t_regions __attribute__((tls_model("initial-exec"))) = nullptr;

inline unsigned slot_of(const char* p) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(p);
  return static_cast<unsigned>((x ^ (x >> 5) ^ (x >> 11)) & (kSlots - 1));
}

inline void room(ThreadState* ts, size_t need) {
  if (__builtin_expect(static_cast<size_t>(ts->end - ts->pos) < need, 0)) ts->grow(need);
}

// First use of this address on the thread, or a slot collision: find or number the name and
// write its definition before the first marker that uses it.
__attribute__((noinline)) uint32_t intern(ThreadState* ts, const char* p, uint32_t len) {
  try {
    ThreadRegions* tr = t_regions;
    if (!tr || tr->owner != ts) {
      tr = new (std::nothrow) ThreadRegions();
      if (!tr) return 0;
      tr->owner = ts;
      t_regions = tr;
    }
    tr->key.assign(p, len);
    auto it = tr->ids.find(tr->key);
    if (it == tr->ids.end()) {
      it = tr->ids.emplace(tr->key, static_cast<uint32_t>(tr->ids.size() + 1)).first;
      room(ts, 3 * kMaxVarintBytes + len + kRepeatRoom);
      end_poll_run(ts);
      uint8_t* q = ts->pos;
      q = put_varint(q, kRegionNameRecord);
      q = put_varint(q, it->second);
      q = put_varint(q, len);
      std::memcpy(q, p, len);
      ts->pos = q + len;
    }
    tr->slot[slot_of(p)] = Slot{p, it->first.data(), len, it->second};
    return it->second;
  } catch (...) {
    return 0;  // out of memory: the marker is dropped, the application goes on
  }
}

// A cache hit costs one comparison of the name with the stored copy, done inline (no strlen,
// no memcmp call): names are short.
inline const Slot* cached(const ThreadState* ts, const char* p) {
  const ThreadRegions* tr = t_regions;
  if (__builtin_expect(tr == nullptr || tr->owner != ts, 0)) return nullptr;
  const Slot* s = &tr->slot[slot_of(p)];
  return s->ptr == p ? s : nullptr;
}

// C strings: equal to the copy, and terminated where it ends (unless truncated).
inline bool same_text(const Slot& s, const char* p) {
  for (uint32_t i = 0; i < s.len; ++i)
    if (p[i] != s.text[i]) return false;
  return s.len == kMaxRegionName || p[s.len] == '\0';
}

inline bool same_text(const Slot& s, const char* p, uint32_t len) {
  if (s.len != len) return false;
  for (uint32_t i = 0; i < len; ++i)
    if (p[i] != s.text[i]) return false;
  return true;
}

inline void write_mark(ThreadState* ts, RegionKind kind, uint64_t t, uint32_t id) {
  room(ts, 3 * kMaxVarintBytes + kRepeatRoom);
  end_poll_run(ts);
  uint8_t* q = ts->pos;
  *q++ = static_cast<uint8_t>(kind);  // header: call id 0 << 3 | kind, one byte
  q = put_varint(q, zigzag(static_cast<int64_t>(t - ts->last_tick)));
  q = put_varint(q, id);
  ts->last_tick = t;
  ts->pos = q;
}

const char kUnnamed[] = "(unnamed)";

// `len` is the name's length, or kUnknownLength for a C string not measured yet.
constexpr uint32_t kUnknownLength = ~0u;

// Markers are kept while MPI recording is paused (MPI_Pcontrol(0)), so that a region begun
// before a pause and ended during it stays balanced.
inline void mark(RegionKind kind, const char* p, uint32_t len) {
  ThreadState* ts = enter_tracking();
  if (!ts) return;
  if (__builtin_expect(!recording_now(), 0) && trace_store().state() == StoreState::Stopped) {
    leave(ts);  // stopped at the memory cap: nothing is recorded any more
    return;
  }
  const uint64_t t = ticks();
  uint32_t id = 0;
  const Slot* s = p ? cached(ts, p) : nullptr;
  if (s && (len == kUnknownLength ? same_text(*s, p) : same_text(*s, p, len))) {
    id = s->id;
  } else {
    if (len == kUnknownLength) len = p ? static_cast<uint32_t>(strnlen(p, kMaxRegionName)) : 0;
    if (len == 0 && kind != RegionKind::End) {
      p = kUnnamed;
      len = sizeof kUnnamed - 1;
    }
    // An end without a name closes the innermost region (id 0).
    id = len ? intern(ts, p, len) : 0;
  }
  if (id || kind == RegionKind::End) write_mark(ts, kind, t, id);
  leave(ts);
}

inline void c_mark(RegionKind kind, const char* name) { mark(kind, name, kUnknownLength); }

// Fortran strings: not terminated, padded with blanks.
inline void f_mark(RegionKind kind, const char* name, size_t len) {
  if (!name) len = 0;
  while (len > 0 && name[len - 1] == ' ') --len;
  mark(kind, name, static_cast<uint32_t>(len < kMaxRegionName ? len : kMaxRegionName));
}

}  // namespace

}  // namespace cpath

extern "C" {

CPATH_EXPORT void cpath_region_begin(const char* name) { cpath::c_mark(cpath::RegionKind::Begin, name); }
CPATH_EXPORT void cpath_region_end(const char* name) { cpath::c_mark(cpath::RegionKind::End, name); }
CPATH_EXPORT void cpath_phase(const char* name) { cpath::c_mark(cpath::RegionKind::Phase, name); }

// Fortran: the hidden length argument follows the string (gfortran, Intel, Flang).
CPATH_EXPORT void cpath_region_begin_(const char* name, size_t len) { cpath::f_mark(cpath::RegionKind::Begin, name, len); }
CPATH_EXPORT void cpath_region_end_(const char* name, size_t len) { cpath::f_mark(cpath::RegionKind::End, name, len); }
CPATH_EXPORT void cpath_phase_(const char* name, size_t len) { cpath::f_mark(cpath::RegionKind::Phase, name, len); }
CPATH_EXPORT void cpath_region_begin__(const char*, size_t) __attribute__((alias("cpath_region_begin_")));
CPATH_EXPORT void cpath_region_end__(const char*, size_t) __attribute__((alias("cpath_region_end_")));
CPATH_EXPORT void cpath_phase__(const char*, size_t) __attribute__((alias("cpath_phase_")));
CPATH_EXPORT void CPATH_REGION_BEGIN(const char*, size_t) __attribute__((alias("cpath_region_begin_")));
CPATH_EXPORT void CPATH_REGION_END(const char*, size_t) __attribute__((alias("cpath_region_end_")));
CPATH_EXPORT void CPATH_PHASE(const char*, size_t) __attribute__((alias("cpath_phase_")));

}  // extern "C"
