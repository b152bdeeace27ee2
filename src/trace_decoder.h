// Decodes the per-thread record stream (record_writer.h) back into Events. Pure and
// MPI-free: the runtime, the trace reader and the sequential reference all use it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "call_info.h"
#include "event.h"
#include "region_record.h"

namespace cpath {

struct DecodedThread {
  std::vector<Event> events;
  std::vector<Completion> completions;  // Event::list_* for Complete calls
  std::vector<uint64_t> reqlists;       // Event::list_* for Startall
  // Event::poll_*: lists of polled requests. A polling loop repeats one list: its events all
  // point to the same stored copy.
  std::vector<uint64_t> polls;
  std::vector<GapRecord> gaps;          // in stream order
  std::vector<RegionMark> regions;      // user region markers (region_record.h), not events
  std::vector<std::string> region_names;  // by the thread's name id; [0] unused
  std::vector<std::pair<uint32_t, uint32_t>> repeats;  // (event, polls merged into it), by event
  // The thread's CPU time read at polls (kCpuRecord): (tick, CPU ns), in time order.
  std::vector<std::pair<uint64_t, uint64_t>> cpu;
};

// Polls merged into the one before them (repeat records), all of the thread's.
inline uint64_t merged_polls(const DecodedThread& d) {
  uint64_t n = 0;
  for (const auto& r : d.repeats) n += r.second;
  return n;
}

class TraceDecoder {
 public:
  explicit TraceDecoder(uint32_t thread) : thread_(thread) {}
  // Decodes the records in [p, end) (one chunk or several concatenated) and appends them.
  // Returns false and sets error() if the bytes are not a valid record stream.
  bool decode(const uint8_t* p, const uint8_t* end, DecodedThread* out);
  const std::string& error() const { return error_; }

 private:
  uint32_t thread_;
  uint64_t last_tick_ = 0;
  uint64_t last_handle_ = 0;
  uint64_t last_obj_ = 0;
  uint64_t last_cpu_ = 0;
  uint64_t comm_mru_[4] = {0, 0, 0, 0};
  std::vector<uint64_t> last_polls_;
  bool have_polls_ = false;                 // last_polls_ holds a list
  const DecodedThread* polls_out_ = nullptr;  // where last_polls_ is already stored...
  uint32_t polls_at_ = 0;                     // ...and at which offset
  uint64_t last_callsite_[kNumCalls] = {};
  // The bases each of the last polls left (events that can be polls: a flag or a polled list),
  // for a repeat of a cycle of them (kRepeatCycleRecord) that ended within the cycle.
  struct PollBases {
    uint32_t event = ~0u;  // index in out's events
    uint16_t call = 0;
    bool have_polls = false;
    uint32_t polls_at = 0, polls_n = 0;
    const DecodedThread* out = nullptr;
    uint64_t site = 0, handle = 0, obj = 0;
    uint64_t mru[4] = {};
  };
  static constexpr unsigned kCycle = kPollCycle;
  PollBases poll_bases_[kCycle];
  unsigned poll_newest_ = 0;
  std::string error_;
  // Call id 0: a region marker or name (region_record.h). False on malformed input.
  bool decode_region(unsigned kind, const uint8_t*& p, const uint8_t* end, DecodedThread* out);
  // Call id 0, kind kRepeatCycleRecord. False on malformed input.
  bool repeat_cycle(const uint8_t*& p, const uint8_t* end, DecodedThread* out);
};

}  // namespace cpath
