// User region and phase markers (include/cpath.h) in the per-thread record stream. They share
// the stream with MPI records, so they are ordered with them and delta-coded against the same
// last time, but they use call id 0, which no MPI call has, and never become Events: the
// decoder files them apart (DecodedThread::regions), so they are never PAG vertices.
//   header  varint  0 << 3 | kind          kind: 1 begin, 2 end, 3 phase, 4 name
//   begin/end/phase: varint zigzag(t - previous record's end), varint name id (end: 0 = the
//                    innermost open region)
//   name:            varint id, varint length, bytes; written once per thread before the first
//                    marker that uses the id (ids are per thread, from 1)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cpath {

enum class RegionKind : uint8_t { Begin = 1, End = 2, Phase = 3 };
constexpr unsigned kRegionNameRecord = 4;
// Also call id 0: a run of identical unsuccessful polls (record_writer.h, finish_poll) ended.
//   header  varint  0 << 3 | 5
//           varint  polls merged into the previous record
//           varint  the last one's end - that record's end (ticks): the record now ends there
constexpr unsigned kRepeatRecord = 5;
// Also call id 0: a run of polls that repeated a cycle of the thread's last p records ended.
//   header  varint  0 << 3 | 6
//           byte    p, the cycle's length (2 .. kPollCycle)
//           varint  polls merged: the first is a copy of the cycle's first record, the next of
//                   its second, and so on round the cycle
//           varint  the last one's end - the cycle's last record's end (ticks): that record
//                   now ends there
constexpr unsigned kRepeatCycleRecord = 6;
constexpr unsigned kPollCycle = 8;  // the longest cycle merged
// Also call id 0: the thread's CPU time, read at the end of a poll (at most once per option
// poll_cpu= of wall time), so that rule 5 can tell a polling loop's thread descheduled between
// two polls from one that worked there (docs/pag-rules.md rule 5).
//   header  varint  0 << 3 | 7
//           varint  zigzag(tick of the read - the previous record's end)
//           varint  CPU ns - the thread's previous CPU record's (CLOCK_THREAD_CPUTIME_ID)
constexpr unsigned kCpuRecord = 7;
constexpr uint32_t kMaxRegionName = 256;  // longer names are truncated

struct RegionMark {
  uint64_t tick = 0;          // raw ticks of the recording thread's clock
  uint32_t id = 0;            // index into DecodedThread::region_names (0: innermost, for End)
  uint32_t thread = 0;
  uint32_t next_event = 0;    // index of the thread's next MPI event (DecodedThread::events)
  RegionKind kind = RegionKind::Begin;
};

}  // namespace cpath
