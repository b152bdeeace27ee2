// Decoding of perf ring-buffer records from hand-built byte buffers. The
// hardware group-read layouts are covered here because the CI VMs have no PMU.
#include "pmu/perf_record_decoder.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <vector>

namespace cpath::pmu {
namespace {

// Builds one record: header first, payload appended, size patched on finish().
class Rec {
 public:
  explicit Rec(uint32_t type, uint16_t misc = PERF_RECORD_MISC_USER) {
    perf_event_header h{type, misc, 0};
    append(&h, sizeof(h));
  }
  Rec& u64(uint64_t v) { return append(&v, 8); }
  Rec& u32(uint32_t v) { return append(&v, 4); }
  std::vector<uint8_t> finish() {
    const uint16_t size = static_cast<uint16_t>(bytes_.size());
    std::memcpy(bytes_.data() + offsetof(perf_event_header, size), &size, 2);
    return bytes_;
  }

 private:
  Rec& append(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

struct Collect : RecordSink {
  struct Chain {
    std::vector<uint64_t> entries;
  };
  std::vector<DecodedSample> samples;
  std::vector<std::vector<uint64_t>> chains;
  std::vector<std::pair<uint64_t, uint64_t>> lost;
  std::vector<std::pair<uint64_t, bool>> throttles;
  void on_sample(const DecodedSample& s) override {
    samples.push_back(s);
    std::vector<uint64_t> c;
    for (uint32_t i = 0; i < s.chain_len; ++i) c.push_back(s.chain_at(i));
    chains.push_back(c);
    samples.back().chain_bytes = nullptr;  // not valid after the callback
  }
  void on_lost(uint64_t id, uint64_t n) override { lost.emplace_back(id, n); }
  void on_throttle(uint64_t t, bool on) override { throttles.emplace_back(t, on); }
};

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

constexpr uint64_t kBasic = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;

std::vector<uint8_t> basic_sample(uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time,
                                  uint64_t period) {
  return Rec(PERF_RECORD_SAMPLE).u64(ip).u32(pid).u32(tid).u64(time).u64(period).finish();
}

TEST(PerfRecordDecoder, SampleWithIpTidTimePeriod) {
  const auto buf = basic_sample(0x401000, 100, 101, 123456789, 1000000);
  Collect sink;
  DecodeCounts counts;
  EXPECT_EQ(decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts), buf.size());
  ASSERT_EQ(sink.samples.size(), 1u);
  const auto& s = sink.samples[0];
  EXPECT_EQ(s.ip, 0x401000u);
  EXPECT_EQ(s.pid, 100u);
  EXPECT_EQ(s.tid, 101u);
  EXPECT_EQ(s.time, 123456789u);
  EXPECT_EQ(s.period, 1000000u);
  EXPECT_FALSE(s.has_read);
  EXPECT_EQ(s.chain_len, 0u);
  EXPECT_EQ(counts.samples, 1u);
  EXPECT_EQ(counts.malformed, 0u);
}

TEST(PerfRecordDecoder, OptionalFieldsBeforePeriodAreHonoured) {
  const uint64_t type = PERF_SAMPLE_IDENTIFIER | kBasic | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                        PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU;
  const auto buf = Rec(PERF_RECORD_SAMPLE)
                       .u64(77)      // identifier
                       .u64(0x1234)  // ip
                       .u32(5).u32(6)
                       .u64(999)     // time
                       .u64(0xdead)  // addr
                       .u64(77)      // id
                       .u64(78)      // stream id
                       .u32(1).u32(0)  // cpu, res
                       .u64(4242)    // period
                       .finish();
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {type, 0}, sink, counts);
  ASSERT_EQ(sink.samples.size(), 1u);
  EXPECT_EQ(sink.samples[0].identifier, 77u);
  EXPECT_EQ(sink.samples[0].addr, 0xdeadu);
  EXPECT_EQ(sink.samples[0].stream_id, 78u);
  EXPECT_EQ(sink.samples[0].cpu, 1u);
  EXPECT_EQ(sink.samples[0].period, 4242u);
}

TEST(PerfRecordDecoder, SampleWithCallchainKeepsMarkersForTheConsumer) {
  const auto buf = Rec(PERF_RECORD_SAMPLE)
                       .u64(0x1000).u32(1).u32(2).u64(10).u64(1)
                       .u64(4)
                       .u64(PERF_CONTEXT_USER)
                       .u64(0x1000).u64(0x2000).u64(0x3000)
                       .finish();
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {kBasic | PERF_SAMPLE_CALLCHAIN, 0}, sink, counts);
  ASSERT_EQ(sink.samples.size(), 1u);
  EXPECT_EQ(sink.samples[0].chain_len, 4u);
  EXPECT_EQ(sink.chains[0], (std::vector<uint64_t>{PERF_CONTEXT_USER, 0x1000, 0x2000, 0x3000}));
  EXPECT_TRUE(is_context_marker(sink.chains[0][0]));
  EXPECT_FALSE(is_context_marker(sink.chains[0][1]));
}

TEST(PerfRecordDecoder, GroupReadCyclesInstructionsWithoutId) {
  const uint64_t fmt = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  const auto buf = Rec(PERF_RECORD_SAMPLE)
                       .u64(0x5000).u32(1).u32(2).u64(10).u64(2000000)
                       .u64(2)        // nr
                       .u64(1500000)  // time_enabled
                       .u64(1400000)  // time_running
                       .u64(3000000)  // cycles
                       .u64(4500000)  // instructions
                       .finish();
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {kBasic | PERF_SAMPLE_READ, fmt}, sink, counts);
  ASSERT_EQ(sink.samples.size(), 1u);
  const auto& r = sink.samples[0].read;
  EXPECT_TRUE(sink.samples[0].has_read);
  EXPECT_EQ(r.nr, 2u);
  EXPECT_EQ(r.time_enabled, 1500000u);
  EXPECT_EQ(r.time_running, 1400000u);
  EXPECT_EQ(r.value[0], 3000000u);
  EXPECT_EQ(r.value[1], 4500000u);
  EXPECT_EQ(r.id[0], 0u);
}

TEST(PerfRecordDecoder, GroupReadWithIdAndCallchainAfterIt) {
  const uint64_t fmt = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  const auto buf = Rec(PERF_RECORD_SAMPLE)
                       .u64(0x5000).u32(1).u32(2).u64(10).u64(7)
                       .u64(2).u64(900)         // nr, enabled
                       .u64(111).u64(31)        // cycles, id
                       .u64(222).u64(32)        // instructions, id
                       .u64(1).u64(0x5000)      // callchain
                       .finish();
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(),
                {kBasic | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN, fmt}, sink, counts);
  ASSERT_EQ(sink.samples.size(), 1u);
  const auto& r = sink.samples[0].read;
  EXPECT_EQ(r.time_enabled, 900u);
  EXPECT_EQ(r.time_running, 0u);
  EXPECT_EQ(r.value[0], 111u);
  EXPECT_EQ(r.id[0], 31u);
  EXPECT_EQ(r.value[1], 222u);
  EXPECT_EQ(r.id[1], 32u);
  EXPECT_EQ(sink.chains[0], (std::vector<uint64_t>{0x5000}));
}

TEST(PerfRecordDecoder, NonGroupReadLayout) {
  const uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
  const auto buf = Rec(PERF_RECORD_SAMPLE).u64(1).u32(1).u32(2).u64(3).u64(4)
                       .u64(555).u64(666).u64(9)  // value, enabled, id
                       .finish();
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {kBasic | PERF_SAMPLE_READ, fmt}, sink, counts);
  ASSERT_EQ(sink.samples.size(), 1u);
  EXPECT_EQ(sink.samples[0].read.nr, 1u);
  EXPECT_EQ(sink.samples[0].read.value[0], 555u);
  EXPECT_EQ(sink.samples[0].read.time_enabled, 666u);
  EXPECT_EQ(sink.samples[0].read.id[0], 9u);
}

TEST(PerfRecordDecoder, LostRecordsAreCounted) {
  const auto buf = cat({Rec(PERF_RECORD_LOST).u64(3).u64(17).finish(),
                        Rec(PERF_RECORD_LOST_SAMPLES).u64(5).finish(),
                        basic_sample(1, 1, 1, 1, 1)});
  Collect sink;
  DecodeCounts counts;
  EXPECT_EQ(decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts), buf.size());
  EXPECT_EQ(counts.lost_records, 2u);
  EXPECT_EQ(counts.lost, 22u);
  ASSERT_EQ(sink.lost.size(), 2u);
  EXPECT_EQ(sink.lost[0], (std::pair<uint64_t, uint64_t>{3, 17}));
  EXPECT_EQ(counts.samples, 1u);
}

TEST(PerfRecordDecoder, ThrottleAndUnthrottleAreCounted) {
  const auto buf = cat({Rec(PERF_RECORD_THROTTLE).u64(100).u64(1).u64(1).finish(),
                        Rec(PERF_RECORD_UNTHROTTLE).u64(200).u64(1).u64(1).finish(),
                        Rec(PERF_RECORD_THROTTLE).u64(300).u64(1).u64(1).finish()});
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts);
  EXPECT_EQ(counts.throttle, 2u);
  EXPECT_EQ(counts.unthrottle, 1u);
  ASSERT_EQ(sink.throttles.size(), 3u);
  EXPECT_EQ(sink.throttles[1], (std::pair<uint64_t, bool>{200, false}));
}

TEST(PerfRecordDecoder, UnknownRecordsAreSkippedBySize) {
  Rec mmap2(PERF_RECORD_MMAP2);
  for (int i = 0; i < 9; ++i) mmap2.u64(0xabababababababab);
  const auto buf = cat({mmap2.finish(), Rec(999).u64(1).finish(), basic_sample(0x77, 1, 2, 3, 4)});
  Collect sink;
  DecodeCounts counts;
  EXPECT_EQ(decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts), buf.size());
  EXPECT_EQ(counts.skipped, 2u);
  ASSERT_EQ(sink.samples.size(), 1u);
  EXPECT_EQ(sink.samples[0].ip, 0x77u);
}

TEST(PerfRecordDecoder, TruncatedSampleIsMalformedAndFollowingRecordsStillDecode) {
  // A group read claiming 1000 values inside a 64-byte record.
  const auto bad = Rec(PERF_RECORD_SAMPLE).u64(1).u32(1).u32(2).u64(3).u64(4).u64(1000).u64(0).finish();
  const auto buf = cat({bad, basic_sample(0x88, 1, 2, 3, 4)});
  Collect sink;
  DecodeCounts counts;
  decode_buffer(buf.data(), buf.size(), {kBasic | PERF_SAMPLE_READ, PERF_FORMAT_GROUP}, sink,
                counts);
  // The second record is decoded with the same (group) layout and is short
  // too; what matters is that each is skipped by its own size.
  EXPECT_EQ(counts.malformed, 2u);
  EXPECT_EQ(counts.samples, 0u);

  Collect sink2;
  DecodeCounts counts2;
  const auto buf2 = cat({Rec(PERF_RECORD_SAMPLE).u64(1).finish(), basic_sample(0x99, 1, 2, 3, 4)});
  decode_buffer(buf2.data(), buf2.size(), {kBasic, 0}, sink2, counts2);
  EXPECT_EQ(counts2.malformed, 1u);
  ASSERT_EQ(sink2.samples.size(), 1u);
  EXPECT_EQ(sink2.samples[0].ip, 0x99u);
}

TEST(PerfRecordDecoder, PartialTrailingRecordIsNotConsumed) {
  const auto whole = basic_sample(1, 1, 1, 1, 1);
  auto buf = cat({whole, whole});
  buf.resize(buf.size() - 8);
  Collect sink;
  DecodeCounts counts;
  EXPECT_EQ(decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts), whole.size());
  EXPECT_EQ(counts.samples, 1u);
}

TEST(PerfRecordDecoder, ZeroSizedHeaderStopsDecoding) {
  std::vector<uint8_t> buf(64, 0);
  Collect sink;
  DecodeCounts counts;
  EXPECT_EQ(decode_buffer(buf.data(), buf.size(), {kBasic, 0}, sink, counts), 0u);
  EXPECT_EQ(counts.malformed, 1u);
}

// Lays `records` into a ring of `ring_size` bytes starting at free-running
// offset `start`, as the kernel would.
std::vector<uint8_t> fill_ring(size_t ring_size, uint64_t start, const std::vector<uint8_t>& records) {
  std::vector<uint8_t> ring(ring_size, 0xee);
  for (size_t i = 0; i < records.size(); ++i) ring[(start + i) % ring_size] = records[i];
  return ring;
}

TEST(PerfRecordDecoder, RingWrapAroundReassemblesStraddlingRecord) {
  const uint64_t fmt = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto group_sample = [](uint64_t ip, uint64_t cyc) {
    return Rec(PERF_RECORD_SAMPLE).u64(ip).u32(1).u32(2).u64(ip).u64(9)
        .u64(2).u64(10).u64(10).u64(cyc).u64(cyc * 2).finish();  // 80 bytes
  };
  const auto records = cat({group_sample(0xa, 100), group_sample(0xb, 200),
                            Rec(PERF_RECORD_LOST).u64(0).u64(3).finish(), group_sample(0xc, 300)});
  const size_t ring_size = 512;
  // Free-running offsets several laps in, with the second record straddling.
  const uint64_t tail = 7 * ring_size + 400;
  const uint64_t head = tail + records.size();
  ASSERT_LE(records.size(), ring_size);
  ASSERT_GT((tail % ring_size) + 2 * 80, ring_size);  // record 2 straddles the end
  const auto ring = fill_ring(ring_size, tail, records);

  Collect sink;
  DecodeCounts counts;
  std::vector<uint8_t> scratch;
  const uint64_t new_tail = decode_ring(ring.data(), ring.size(), tail, head,
                                        {kBasic | PERF_SAMPLE_READ, fmt}, sink, counts, scratch);
  EXPECT_EQ(new_tail, head);
  ASSERT_EQ(sink.samples.size(), 3u);
  EXPECT_EQ(sink.samples[1].ip, 0xbu);
  EXPECT_EQ(sink.samples[1].read.value[0], 200u);
  EXPECT_EQ(sink.samples[1].read.value[1], 400u);
  EXPECT_EQ(sink.samples[2].read.value[1], 600u);
  EXPECT_EQ(counts.lost, 3u);
  EXPECT_EQ(counts.malformed, 0u);
  EXPECT_GE(scratch.size(), 80u);  // the straddling record went through scratch
}

TEST(PerfRecordDecoder, RingDecodingResumesFromReturnedTail) {
  const size_t ring_size = 128;
  const auto r = basic_sample(0x10, 1, 2, 3, 4);  // 40 bytes
  const auto records = cat({r, r, r});
  const uint64_t tail = ring_size - 16;
  const auto ring = fill_ring(ring_size, tail, records);
  Collect sink;
  DecodeCounts counts;
  std::vector<uint8_t> scratch;
  // Producer has published only 1.5 records: the half record stays for later.
  uint64_t t = decode_ring(ring.data(), ring_size, tail, tail + 60, {kBasic, 0}, sink, counts, scratch);
  EXPECT_EQ(t, tail + 40);
  t = decode_ring(ring.data(), ring_size, t, tail + records.size(), {kBasic, 0}, sink, counts, scratch);
  EXPECT_EQ(t, tail + records.size());
  EXPECT_EQ(sink.samples.size(), 3u);
}

TEST(PerfRecordDecoder, GarbageInRingIsSkippedNotLoopedOn) {
  const size_t ring_size = 64;
  std::vector<uint8_t> ring(ring_size, 0);  // header.size == 0 everywhere
  Collect sink;
  DecodeCounts counts;
  std::vector<uint8_t> scratch;
  EXPECT_EQ(decode_ring(ring.data(), ring_size, 8, 40, {kBasic, 0}, sink, counts, scratch), 40u);
  EXPECT_EQ(counts.malformed, 1u);
  // head - tail larger than the ring: inconsistent, skipped.
  EXPECT_EQ(decode_ring(ring.data(), ring_size, 0, 1000, {kBasic, 0}, sink, counts, scratch), 1000u);
  EXPECT_EQ(counts.malformed, 2u);
}

}  // namespace
}  // namespace cpath::pmu
