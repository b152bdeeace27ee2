#include "unrecorded.h"

#include <map>
#include <mutex>
#include <utility>

#include "comm_registry.h"
#include "record_writer.h"
#include "trace_store.h"

namespace cpath {

namespace {

std::mutex g_mu;
// (communicator record or -1, window/file handle) -> calls: the threads' tables merged at a
// flush, and the calls of threads whose table was full. Ordered: flushes are deterministic.
std::map<std::pair<int, uint64_t>, uint64_t> g_counts;

// A communicator libcpath never saw created stays -1: the analysis counts those calls as on
// an unknown communicator.
int record_of(uint64_t comm_bits) { return comm_bits ? comm_registry().record_of(comm_bits) : -1; }

// Requires g_mu. Moves every thread's counts into g_counts.
void merge_threads_locked() {
  for (ThreadState* ts : trace_store().threads()) {
    UnrecordedTable& tab = ts->unrecorded;
    const int used = tab.used.load(std::memory_order_acquire);
    for (int i = 0; i < used; ++i) {
      UnrecordedSlot& s = tab.slot[i];
      const uint64_t n = s.n.exchange(0, std::memory_order_relaxed);
      if (n) g_counts[{s.rec, s.comm ? 0 : s.obj}] += n;
    }
  }
}

}  // namespace

void unrecorded_collective(uint64_t comm_bits, uint64_t obj_bits) {
  if (comm_bits) obj_bits = 0;
  ThreadState* ts = t_state;
  if (ts) {
    // Common path: this thread's slot for the handle, its record still valid.
    UnrecordedTable& tab = ts->unrecorded;
    const int used = tab.used.load(std::memory_order_relaxed);
    const uint32_t gen = comm_registry().generation();
    for (int i = 0; i < used; ++i) {
      UnrecordedSlot& s = tab.slot[i];
      if (s.comm == comm_bits && s.obj == obj_bits && (s.gen == gen || !comm_bits)) {
        s.n.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    // A new handle, or communicators registered since: resolve (the generation is read
    // first, so a registration meanwhile only causes another resolution next time). A slot
    // of the same handle and record is revalidated; counts of an older record stay in its slot.
    const int rec = record_of(comm_bits);
    for (int i = 0; i < used; ++i) {
      UnrecordedSlot& s = tab.slot[i];
      if (s.comm == comm_bits && s.obj == obj_bits && s.rec == rec) {
        s.gen = gen;
        s.n.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    if (used < kUnrecordedSlots) {
      UnrecordedSlot& s = tab.slot[used];
      s.comm = comm_bits;
      s.obj = obj_bits;
      s.rec = rec;
      s.gen = gen;
      s.n.store(1, std::memory_order_relaxed);
      tab.used.store(used + 1, std::memory_order_release);  // the flush may read the key now
      return;
    }
    std::lock_guard<std::mutex> g(g_mu);
    ++g_counts[{rec, obj_bits}];
    return;
  }
  const int rec = record_of(comm_bits);
  std::lock_guard<std::mutex> g(g_mu);
  ++g_counts[{rec, obj_bits}];
}

size_t unrecorded_pending() {
  std::lock_guard<std::mutex> g(g_mu);
  merge_threads_locked();
  return g_counts.size();
}

void flush_unrecorded(ThreadState* ts, uint64_t t, bool force_room) {
  std::lock_guard<std::mutex> g(g_mu);
  merge_threads_locked();
  if (g_counts.empty()) return;
  const size_t need = g_counts.size() * 48 + kMaxFixedRecord;
  if (force_room && static_cast<size_t>(ts->end - ts->pos) < need) ts->force_room(need);
  for (const auto& [key, n] : g_counts) {
    RecordWriter w(ts, kCall_CPATH_Gap, t, t, nullptr, 0u, 0);
    w.newcomm(key.first + 1);
    w.aux(static_cast<int64_t>(n));
    w.obj(key.second);
    w.finish();
  }
  g_counts.clear();
}

}  // namespace cpath
