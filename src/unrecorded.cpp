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
// (communicator record or -1, window/file handle) -> calls. Ordered: flushes are deterministic.
std::map<std::pair<int, uint64_t>, uint64_t> g_counts;

}  // namespace

void unrecorded_collective(uint64_t comm_bits, uint64_t obj_bits) {
  // A communicator libcpath never saw created stays -1: the analysis counts those calls as
  // on an unknown communicator.
  const int rec = comm_bits ? comm_registry().record_of(comm_bits) : -1;
  std::lock_guard<std::mutex> g(g_mu);
  ++g_counts[{rec, comm_bits ? 0 : obj_bits}];
}

size_t unrecorded_pending() {
  std::lock_guard<std::mutex> g(g_mu);
  return g_counts.size();
}

void flush_unrecorded(ThreadState* ts, uint64_t t, bool force_room) {
  std::lock_guard<std::mutex> g(g_mu);
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
