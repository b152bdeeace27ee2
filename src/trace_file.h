// The per-rank trace file written with option dump=1 (format: docs/trace-format.md), and its
// reader. The record streams are stored exactly as recorded.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rank_trace.h"

namespace cpath {

constexpr char kTraceMagic[8] = {'C', 'P', 'A', 'T', 'H', 'T', 'R', '\0'};
constexpr uint32_t kTraceVersion = 3;  // 2: MPI_Win_post/start record their group, MPI_Win_test its flag; 3: repeats of a cycle of polls, CPU reads at polls
constexpr uint32_t kTraceVersionMin = 2;  // older ones decode as they were written
enum : uint32_t { kSecMeta = 1, kSecClock = 2, kSecComms = 3, kSecModules = 4, kSecThread = 5, kSecTopology = 6, kSecCallPaths = 7 };

struct ThreadStream {
  uint32_t thread = 0;
  uint32_t os_tid = 0;  // 0 when not known (a trace read from a file)
  std::vector<std::pair<const uint8_t*, size_t>> spans;  // concatenated in order
  uint64_t events = 0;  // records in the spans when known exactly (0: unknown), to size the decode
};

// Section payloads shared by write_trace_file and the crash-time writer (crash_trace.cpp), so
// the two cannot drift apart. `W` is any writer with put<T>(value); these functions neither
// allocate nor lock, so the crash writer may call them from a signal handler.
constexpr uint64_t kClockSectionBytes = 72;
template <class W>
void put_clock_section(W& w, const TickModel& tm, const AlignModel& align, double align_error_ns) {
  w.template put<uint64_t>(tm.tick0);
  w.template put<int64_t>(tm.ns0);
  w.template put<double>(tm.ns_per_tick);
  w.template put<int64_t>(tm.inject_skew_ns);
  w.template put<double>(tm.inject_drift);
  w.template put<int64_t>(align.ref_local_ns);
  w.template put<double>(align.offset_ns);
  w.template put<double>(align.drift);
  w.template put<double>(align_error_ns);
}

// COMMS: the records, then per record its unified key and group (0 and -1 when `table` is
// null: unresolved, readers unify them with unify_offline), the groups, then (appended in
// version 1, readers that stop after the groups skip it) each record's creating call, then
// (appended later, skipped the same way) each record's remote group (CommTable::remote_group).
inline uint64_t comms_section_bytes(size_t n, const CommTable* table) {
  uint64_t groups = 4;
  if (table)
    for (const auto& g : table->groups) groups += 4 + 4 * static_cast<uint64_t>(g.size());
  return 4 + n * (8 + 8 + 4 * 9) + n * (8 + 4) + groups + n * (4 + 4) + n * 4;
}
template <class W>
void put_comms_section(W& w, const CommRecord* comms, size_t n, const CommTable* table) {
  w.template put<uint32_t>(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const CommRecord& c = comms[i];
    w.template put<uint64_t>(c.handle);
    w.template put<uint64_t>(c.created_tick);
    w.template put<int32_t>(c.parent);
    w.template put<int32_t>(c.key_rank);
    w.template put<uint32_t>(c.key_counter);
    w.template put<int32_t>(c.local_rank);
    w.template put<int32_t>(c.size);
    w.template put<int32_t>(c.remote_size);
    w.template put<uint32_t>(c.flags);
    w.template put<uint32_t>(c.dup_ordinal);
    w.template put<uint32_t>(c.creator_call);
  }
  for (size_t i = 0; i < n; ++i) {
    w.template put<uint64_t>(table && i < table->key.size() ? table->key[i] : 0);
    w.template put<int32_t>(table && i < table->group.size() ? table->group[i] : -1);
  }
  w.template put<uint32_t>(table ? static_cast<uint32_t>(table->groups.size()) : 0u);
  if (table)
    for (const auto& g : table->groups) {
      w.template put<uint32_t>(static_cast<uint32_t>(g.size()));
      for (int32_t r : g) w.template put<int32_t>(r);
    }
  for (size_t i = 0; i < n; ++i) {
    w.template put<uint32_t>(comms[i].call);
    w.template put<int32_t>(comms[i].which);
  }
  for (size_t i = 0; i < n; ++i)
    w.template put<int32_t>(table && i < table->remote_group.size() ? table->remote_group[i]
                            : (comms[i].flags & kCommInter) ? -1 : CommTable::kNotInter);
}

// TOPOLOGY: the neighbour lists of topology communicators.
inline uint64_t topology_section_bytes(const CommTopology* topos, size_t n) {
  uint64_t b = 4;
  for (size_t i = 0; i < n; ++i) b += 4 + 4 + 4 + 4 * topos[i].sources.size() + 4 + 4 * topos[i].destinations.size();
  return b;
}
template <class W>
void put_topology_section(W& w, const CommTopology* topos, size_t n) {
  w.template put<uint32_t>(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const CommTopology& c = topos[i];
    w.template put<int32_t>(c.record);
    w.template put<uint32_t>(static_cast<uint32_t>(c.kind));
    w.template put<uint32_t>(static_cast<uint32_t>(c.sources.size()));
    for (int32_t r : c.sources) w.template put<int32_t>(r);
    w.template put<uint32_t>(static_cast<uint32_t>(c.destinations.size()));
    for (int32_t r : c.destinations) w.template put<int32_t>(r);
  }
}

// CALLPATHS (only with stack > 1): `frames_of(i, &len)` gives path i + 1's frames.
template <class F>
uint64_t call_paths_section_bytes(uint32_t n, F frames_of) {
  uint64_t b = 8;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t len = 0;
    frames_of(i, &len);
    b += 4 + 8ull * len;
  }
  return b;
}
template <class W, class F>
void put_call_paths_section(W& w, uint32_t depth, uint32_t n, F frames_of) {
  w.template put<uint32_t>(depth);
  w.template put<uint32_t>(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t len = 0;
    const uint64_t* f = frames_of(i, &len);
    w.template put<uint32_t>(len);
    for (uint32_t k = 0; k < len; ++k) w.template put<uint64_t>(f[k]);
  }
}

// Writes `t`'s metadata and the raw streams. Returns false with a message on failure.
bool write_trace_file(const std::string& path, const RankTrace& t, const std::vector<ThreadStream>& streams,
                      std::string* error);
// Reads and decodes a trace file.
bool read_trace_file(const std::string& path, RankTrace* t, std::string* error);
// The MODULES section's payload (also prepared in advance by the crash-time writer).
std::vector<uint8_t> serialise_modules(const ModuleMap& m);

}  // namespace cpath
