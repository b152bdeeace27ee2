// Pure decoding of perf_event ring-buffer records (no syscalls, no globals),
// so that every record shape, including hardware group reads that this
// project's CI machines cannot produce, is testable from byte buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cpath::pmu {

// What the kernel was asked to put into each PERF_RECORD_SAMPLE; must match
// the attr of the event that owns the ring.
struct RecordLayout {
  uint64_t sample_type = 0;  // PERF_SAMPLE_* bits
  uint64_t read_format = 0;  // PERF_FORMAT_* bits (used when PERF_SAMPLE_READ)
};

// Values of a PERF_SAMPLE_READ block. Group members beyond kMaxValues are
// skipped (still decoded past correctly) because the sampler never opens
// that many events per group.
struct ReadValues {
  static constexpr uint32_t kMaxValues = 8;
  uint32_t nr = 0;              // number of values present (<= kMaxValues)
  uint32_t nr_in_record = 0;    // number the kernel wrote
  uint64_t time_enabled = 0;    // 0 unless PERF_FORMAT_TOTAL_TIME_ENABLED
  uint64_t time_running = 0;    // 0 unless PERF_FORMAT_TOTAL_TIME_RUNNING
  uint64_t value[kMaxValues] = {};
  uint64_t id[kMaxValues] = {};  // 0 unless PERF_FORMAT_ID
};

struct DecodedSample {
  uint64_t identifier = 0;  // PERF_SAMPLE_IDENTIFIER
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t addr = 0;
  uint64_t id = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  bool has_read = false;
  ReadValues read;
  // Raw PERF_SAMPLE_CALLCHAIN entries, kernel PERF_CONTEXT_* markers
  // included (see is_context_marker). Points into the decoded bytes (or a
  // scratch copy), so it is valid only during the callback and may be
  // unaligned: read entries with chain_at().
  const uint8_t* chain_bytes = nullptr;
  uint32_t chain_len = 0;
  uint64_t chain_at(uint32_t i) const noexcept;
};

// True for the PERF_CONTEXT_USER/KERNEL/... separators the kernel puts into
// callchains; they are not addresses.
bool is_context_marker(uint64_t entry) noexcept;

struct DecodeCounts {
  uint64_t samples = 0;
  uint64_t lost_records = 0;  // PERF_RECORD_LOST + PERF_RECORD_LOST_SAMPLES records
  uint64_t lost = 0;          // samples the kernel reported as lost
  uint64_t throttle = 0;
  uint64_t unthrottle = 0;
  uint64_t skipped = 0;       // record types we do not use
  uint64_t malformed = 0;     // records shorter than their layout requires
};

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_sample(const DecodedSample& s) = 0;
  virtual void on_lost(uint64_t /*id*/, uint64_t /*lost*/) {}
  virtual void on_throttle(uint64_t /*time*/, bool /*throttled*/) {}
};

// Decodes one complete record (header included). `size` must equal the
// header's size field. Returns false (and counts it) if the record is malformed.
bool decode_record(const uint8_t* record, size_t size, const RecordLayout& layout,
                   RecordSink& sink, DecodeCounts& counts) noexcept;

// Decodes all complete records in a contiguous buffer. Returns the number of
// bytes consumed; a trailing partial record is left unconsumed. A record with
// header.size < 8 ends decoding (it would otherwise loop forever).
size_t decode_buffer(const uint8_t* data, size_t len, const RecordLayout& layout,
                     RecordSink& sink, DecodeCounts& counts) noexcept;

// Decodes the records between free-running offsets `tail` and `head` of a
// perf ring data area of `ring_size` bytes (a power of two), as found in
// perf_event_mmap_page. Records that wrap past the end of the area are
// reassembled in `scratch` (grown to at most 64 KiB, the largest record).
// Returns the new tail: == head normally; short of head if the last record is
// not complete yet; == head as well when the ring held garbage (a header size
// below 8), which is counted as malformed so the caller always makes progress.
uint64_t decode_ring(const uint8_t* ring, size_t ring_size, uint64_t tail, uint64_t head,
                     const RecordLayout& layout, RecordSink& sink, DecodeCounts& counts,
                     std::vector<uint8_t>& scratch) noexcept;

}  // namespace cpath::pmu
