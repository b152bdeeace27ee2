// Everything one rank recorded, decoded: what the finalize-time analysis works on and what a
// trace file holds (trace_file.h).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "call_path_table.h"
#include "clock.h"
#include "clock_alignment.h"
#include "comm_registry.h"
#include "comm_topology.h"
#include "comm_unification.h"
#include "module_map.h"
#include "trace_decoder.h"

namespace cpath {

struct RankTrace {
  int rank = 0;
  int size = 1;
  std::vector<std::pair<std::string, std::string>> meta;
  TickModel ticks;
  AlignModel align;
  double align_error_ns = 0;
  std::vector<CommRecord> comms;
  CommTable comm_table;
  std::vector<CommTopology> topologies;  // neighbour lists of topology communicators
  ModuleMap modules;
  CallPaths call_paths;  // with stack > 1: what the events' call site numbers stand for
  // At finalize, analyse_and_report releases events, completions and reqlists of threads
  // without region markers once the timeline has copied them: read Timeline::ev instead.
  std::vector<DecodedThread> threads;
  // Per entry of `threads`: the kernel's thread id (0: not known, a trace read from a file).
  std::vector<uint32_t> os_tids;
  uint64_t trace_bytes = 0;  // encoded size of the record streams
  // Written when the job ended before MPI_Finalize (crash_trace.h): why, and the tick then.
  std::string partial;
  uint64_t end_tick = 0;

  std::string meta_value(const std::string& key) const {
    for (const auto& kv : meta)
      if (kv.first == key) return kv.second;
    return "";
  }
  // Local and global (aligned) nanoseconds of a raw tick value.
  int64_t local_ns(uint64_t tick) const { return ticks.to_ns(tick); }
  int64_t global_ns(uint64_t tick) const { return align.to_global(ticks.to_ns(tick)); }
  // Communicator record an event on `handle` at `tick` refers to: the latest record with that
  // handle created no later than the event (MPI reuses handles after MPI_Comm_free).
  int comm_record(uint64_t handle, uint64_t tick) const;

 private:
  // handle -> records with that handle, by creation time; built on first use.
  mutable std::unordered_map<uint64_t, std::vector<std::pair<uint64_t, int>>> comm_index_;
};

// A thread created after MPI_Init (meta thread_births): its index (Event::thread), the index of
// the thread that created it (-1: one that had made no MPI call) and the creator's tick then.
struct ThreadBirth {
  uint32_t thread = 0;
  int64_t creator = -1;
  uint64_t ticks = 0;
};
// The births the trace records, by thread; a malformed entry is skipped.
std::vector<ThreadBirth> thread_births(const RankTrace& t);

}  // namespace cpath
