#include "pmu/perf_record_decoder.h"

#include <linux/perf_event.h>

#include <cstring>
#include <new>

namespace cpath::pmu {
namespace {

// Bounds-checked little cursor: perf records are produced by the kernel but a
// ring read at the wrong offset (or a bug) must never make us read past the
// record.
class Cursor {
 public:
  Cursor(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool u64(uint64_t& v) { return take(&v, 8); }
  bool u32(uint32_t& v) { return take(&v, 4); }
  bool skip(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }
  const uint8_t* pos() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  bool take(void* dst, size_t n) {
    if (left() < n) return false;
    std::memcpy(dst, p_, n);
    p_ += n;
    return true;
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

constexpr uint64_t kFormatLost = 1u << 4;  // PERF_FORMAT_LOST (Linux 6.0); older headers lack it

bool read_one_value(Cursor& c, uint64_t read_format, uint64_t* value, uint64_t* id) {
  if (!c.u64(*value)) return false;
  if (read_format & PERF_FORMAT_ID) {
    if (!c.u64(*id)) return false;
  }
  if (read_format & kFormatLost) {
    uint64_t lost;
    if (!c.u64(lost)) return false;
  }
  return true;
}

bool read_values(Cursor& c, uint64_t read_format, ReadValues& r) {
  if (read_format & PERF_FORMAT_GROUP) {
    uint64_t nr;
    if (!c.u64(nr)) return false;
    // Each value needs at least 8 bytes; reject counts the record cannot hold
    // before narrowing.
    if (nr > c.left() / 8) return false;
    r.nr_in_record = static_cast<uint32_t>(nr);
    if ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) && !c.u64(r.time_enabled)) return false;
    if ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) && !c.u64(r.time_running)) return false;
    r.nr = 0;
    for (uint64_t i = 0; i < nr; ++i) {
      uint64_t v = 0, id = 0;
      if (!read_one_value(c, read_format, &v, &id)) return false;
      if (r.nr < ReadValues::kMaxValues) {
        r.value[r.nr] = v;
        r.id[r.nr] = id;
        ++r.nr;
      }
    }
    return true;
  }
  // Non-group layout: value, then the times, then id.
  r.nr = r.nr_in_record = 1;
  if (!c.u64(r.value[0])) return false;
  if ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) && !c.u64(r.time_enabled)) return false;
  if ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) && !c.u64(r.time_running)) return false;
  if ((read_format & PERF_FORMAT_ID) && !c.u64(r.id[0])) return false;
  if (read_format & kFormatLost) {
    uint64_t lost;
    if (!c.u64(lost)) return false;
  }
  return true;
}

// Field order is fixed by the kernel ABI (include/uapi/linux/perf_event.h,
// PERF_RECORD_SAMPLE). Fields after the callchain are not needed and are
// skipped through header.size by the caller.
bool decode_sample(Cursor& c, const RecordLayout& layout, DecodedSample& s) {
  const uint64_t t = layout.sample_type;
  if ((t & PERF_SAMPLE_IDENTIFIER) && !c.u64(s.identifier)) return false;
  if ((t & PERF_SAMPLE_IP) && !c.u64(s.ip)) return false;
  if (t & PERF_SAMPLE_TID) {
    if (!c.u32(s.pid) || !c.u32(s.tid)) return false;
  }
  if ((t & PERF_SAMPLE_TIME) && !c.u64(s.time)) return false;
  if ((t & PERF_SAMPLE_ADDR) && !c.u64(s.addr)) return false;
  if ((t & PERF_SAMPLE_ID) && !c.u64(s.id)) return false;
  if ((t & PERF_SAMPLE_STREAM_ID) && !c.u64(s.stream_id)) return false;
  if (t & PERF_SAMPLE_CPU) {
    uint32_t res;
    if (!c.u32(s.cpu) || !c.u32(res)) return false;
  }
  if ((t & PERF_SAMPLE_PERIOD) && !c.u64(s.period)) return false;
  if (t & PERF_SAMPLE_READ) {
    s.has_read = true;
    if (!read_values(c, layout.read_format, s.read)) return false;
  }
  if (t & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr;
    if (!c.u64(nr)) return false;
    if (nr > c.left() / 8) return false;
    s.chain_bytes = c.pos();
    s.chain_len = static_cast<uint32_t>(nr);
    c.skip(static_cast<size_t>(nr) * 8);
  }
  return true;
}

}  // namespace

uint64_t DecodedSample::chain_at(uint32_t i) const noexcept {
  uint64_t v = 0;
  if (chain_bytes != nullptr && i < chain_len) std::memcpy(&v, chain_bytes + size_t{i} * 8, 8);
  return v;
}

bool is_context_marker(uint64_t entry) noexcept { return entry >= PERF_CONTEXT_MAX; }

bool decode_record(const uint8_t* record, size_t size, const RecordLayout& layout,
                   RecordSink& sink, DecodeCounts& counts) noexcept {
  if (size < sizeof(perf_event_header)) {
    ++counts.malformed;
    return false;
  }
  perf_event_header h;
  std::memcpy(&h, record, sizeof(h));
  Cursor c(record + sizeof(h), size - sizeof(h));

  switch (h.type) {
    case PERF_RECORD_SAMPLE: {
      DecodedSample s;
      if (!decode_sample(c, layout, s)) {
        ++counts.malformed;
        return false;
      }
      ++counts.samples;
      sink.on_sample(s);
      return true;
    }
    case PERF_RECORD_LOST: {
      uint64_t id, lost;
      if (!c.u64(id) || !c.u64(lost)) {
        ++counts.malformed;
        return false;
      }
      ++counts.lost_records;
      counts.lost += lost;
      sink.on_lost(id, lost);
      return true;
    }
    case PERF_RECORD_LOST_SAMPLES: {
      uint64_t lost;
      if (!c.u64(lost)) {
        ++counts.malformed;
        return false;
      }
      ++counts.lost_records;
      counts.lost += lost;
      sink.on_lost(0, lost);
      return true;
    }
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: {
      uint64_t time;
      if (!c.u64(time)) {
        ++counts.malformed;
        return false;
      }
      const bool throttled = h.type == PERF_RECORD_THROTTLE;
      ++(throttled ? counts.throttle : counts.unthrottle);
      sink.on_throttle(time, throttled);
      return true;
    }
    default:
      ++counts.skipped;
      return true;
  }
}

size_t decode_buffer(const uint8_t* data, size_t len, const RecordLayout& layout,
                     RecordSink& sink, DecodeCounts& counts) noexcept {
  size_t off = 0;
  while (len - off >= sizeof(perf_event_header)) {
    perf_event_header h;
    std::memcpy(&h, data + off, sizeof(h));
    if (h.size < sizeof(perf_event_header)) {
      ++counts.malformed;
      break;
    }
    if (h.size > len - off) break;
    decode_record(data + off, h.size, layout, sink, counts);
    off += h.size;
  }
  return off;
}

uint64_t decode_ring(const uint8_t* ring, size_t ring_size, uint64_t tail, uint64_t head,
                     const RecordLayout& layout, RecordSink& sink, DecodeCounts& counts,
                     std::vector<uint8_t>& scratch) noexcept {
  if (ring_size == 0 || (ring_size & (ring_size - 1)) != 0 || head - tail > ring_size) {
    // Not a ring we can interpret; give up on its contents rather than spin.
    ++counts.malformed;
    return head;
  }
  const uint64_t mask = ring_size - 1;
  while (head - tail >= sizeof(perf_event_header)) {
    const size_t off = static_cast<size_t>(tail & mask);
    // The header itself can straddle the end only if the ring size were not a
    // multiple of 8, which perf never produces, but copy byte-wise anyway.
    perf_event_header h;
    uint8_t hb[sizeof(h)];
    for (size_t i = 0; i < sizeof(h); ++i) hb[i] = ring[(off + i) & mask];
    std::memcpy(&h, hb, sizeof(h));
    if (h.size < sizeof(perf_event_header)) {
      ++counts.malformed;
      return head;
    }
    // The kernel publishes head only at record boundaries, so this is a
    // reader racing a writer it does not know about; wait for the rest.
    if (h.size > head - tail) break;
    if (off + h.size <= ring_size) {
      decode_record(ring + off, h.size, layout, sink, counts);
    } else {
      if (scratch.size() < h.size) {
        try {
          scratch.resize(h.size);
        } catch (...) {
          ++counts.malformed;  // cannot reassemble; skip just this record
          tail += h.size;
          continue;
        }
      }
      const size_t first = ring_size - off;
      std::memcpy(scratch.data(), ring + off, first);
      std::memcpy(scratch.data() + first, ring, h.size - first);
      decode_record(scratch.data(), h.size, layout, sink, counts);
    }
    tail += h.size;
  }
  return tail;
}

}  // namespace cpath::pmu
