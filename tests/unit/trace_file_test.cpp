// The per-rank trace file (src/trace_file.h): write_trace_file / read_trace_file round trip of
// a synthetic RankTrace with record streams from two threads (one split over several spans,
// as chunks are), and rejection of missing, foreign, truncated and corrupt files with a
// clear message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "byte_io.h"
#include "call_info.h"
#include "record_writer.h"
#include "thread_state.h"
#include "trace_file.h"
#include "trace_store.h"
#include "mpi_test_env.h"

using namespace cpath;

namespace {

std::string temp_path(const std::string& name) {
  const char* t = std::getenv("TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/cpath_trace_file_test_" + std::to_string(getpid()) + "_" + name;
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_all(const std::string& path, const std::vector<uint8_t>& v) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
}

using cpath_test::comm_from_bits;
using cpath_test::handle_from_bits;

// Record streams written by hand-set-up ThreadStates.
struct Stream {
  ThreadState ts;
  Chunk* chunk;
  Stream() {
    chunk = allocate_chunk(1 << 16);
    ts.head = ts.current = chunk;
    ts.pos = chunk->data();
    ts.end = chunk->data() + chunk->capacity;
  }
  ~Stream() {
    ts.head = ts.current = nullptr;
    free_chunk(chunk);
  }
  size_t size() const { return static_cast<size_t>(ts.pos - chunk->data()); }
};

// Records number `from` .. `to`-1 of a deterministic sequence.
void some_records(ThreadState* ts, int from, int to, int salt) {
  for (int i = from; i < to; ++i) {
    const uint64_t t = 1000 + static_cast<uint64_t>(salt) + 100 * static_cast<uint64_t>(i);
    const unsigned call = i % 3 == 0 ? kCall_MPI_Isend : i % 3 == 1 ? kCall_MPI_Recv : kCall_MPI_Wait;
    RecordWriter w(ts, call, t, t + 50, reinterpret_cast<const void*>(static_cast<uintptr_t>(0x401000 + 8 * i)), 0, 64);
    if (call == kCall_MPI_Isend) {
      w.peer(i % 4);
      w.tag(salt);
      w.comm(comm_from_bits(0x5000 + 0x100 * (i % 6)));
      w.bytes(static_cast<uint64_t>(i) * 8);
      w.req(0x7f0000000000ull + static_cast<uint64_t>(i));
    } else if (call == kCall_MPI_Recv) {
      w.peer(MPI_ANY_SOURCE);
      w.tag(MPI_ANY_TAG);
      w.comm(comm_from_bits(0x5000));
    } else {
      MPI_Status st;
      st.MPI_SOURCE = i % 4;
      st.MPI_TAG = salt;
      w.completions(1);
      w.completion(0x7f0000000000ull + static_cast<uint64_t>(i - 2), &st);
    }
    w.finish();
  }
}
void some_records(ThreadState* ts, int n, int salt) { some_records(ts, 0, n, salt); }

RankTrace synthetic_trace() {
  RankTrace t;
  t.rank = 2;
  t.size = 4;
  t.meta = {{"rank", "2"}, {"size", "4"}, {"app", "my app"}, {"store_state", "spilled"}, {"empty", ""},
            {"eq", "a=b=c"}};
  t.ticks.tick0 = 123456789;
  t.ticks.ns0 = -42;
  t.ticks.ns_per_tick = 0.3333;
  t.ticks.inject_skew_ns = 7;
  t.ticks.inject_drift = 1e-5;
  t.align.ref_local_ns = 99;
  t.align.offset_ns = -12.5;
  t.align.drift = 2e-7;
  t.align_error_ns = 1500;
  for (int i = 0; i < 4; ++i) {
    CommRecord c;
    c.handle = 0x5000 + 0x100 * static_cast<uint64_t>(i);
    c.created_tick = 10 * static_cast<uint64_t>(i);
    c.parent = i - 1;
    c.key_rank = i == 0 ? 0 : 2;
    c.key_counter = static_cast<uint32_t>(i);
    c.local_rank = i == 0 ? 2 : 0;
    c.size = i == 0 ? 4 : i == 3 ? 1 : 2;
    c.remote_size = i == 2 ? 3 : 0;
    c.flags = i == 0 ? static_cast<uint32_t>(kCommWorld | kCommWorldGroup)
            : i == 2 ? static_cast<uint32_t>(kCommInter)
            : i == 3 ? static_cast<uint32_t>(kCommSelf)
                     : 0u;
    c.dup_ordinal = static_cast<uint32_t>(i);
    c.creator_call = i ? static_cast<uint32_t>(kCall_MPI_Comm_split) : 0u;
    t.comms.push_back(c);
  }
  t.comm_table.key = {kWorldCommKey, (2ull << 32) | 1, (2ull << 32) | 2, (2ull << 32) | 3};
  t.comm_table.group = {0, 1, -1, 2};
  t.comm_table.groups = {{0, 1, 2, 3}, {2, 3}, {2}};
  t.comm_table.world_size = 4;
  ModuleInfo m1{0x400000, 0x400000, 0x480000, "/usr/bin/app"};
  ModuleInfo m2{0x7f0000000000ull, 0x7f0000001000ull, 0x7f0000100000ull, "/lib/libmpi.so.40"};
  t.modules.modules() = {m2, m1};
  t.modules.sort();
  return t;
}

}  // namespace

TEST(TraceFile, RoundTrip) {
  Stream s0, s1;
  // thread 0's stream in three spans cut at record boundaries, as chunks are
  some_records(&s0.ts, 0, 30, 1);
  const size_t cut1 = s0.size();
  some_records(&s0.ts, 30, 60, 1);
  const size_t cut2 = s0.size();
  some_records(&s0.ts, 60, 90, 1);
  some_records(&s1.ts, 7, 2);
  RankTrace t = synthetic_trace();
  std::vector<ThreadStream> streams(2);
  streams[0].thread = 0;
  const uint8_t* d0 = s0.chunk->data();
  streams[0].spans = {{d0, cut1}, {d0 + cut1, cut2 - cut1}, {d0 + cut2, s0.size() - cut2}};
  streams[1].thread = 1;
  streams[1].spans = {{s1.chunk->data(), 0}, {s1.chunk->data(), s1.size()}};  // an empty span too

  const std::string path = temp_path("roundtrip.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, t, streams, &err)) << err;
  RankTrace r;
  ASSERT_TRUE(read_trace_file(path, &r, &err)) << err;
  std::remove(path.c_str());

  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.size, 4);
  EXPECT_EQ(r.meta, t.meta);
  EXPECT_EQ(r.meta_value("store_state"), "spilled");
  EXPECT_EQ(r.meta_value("eq"), "a=b=c");
  EXPECT_EQ(r.ticks.tick0, t.ticks.tick0);
  EXPECT_EQ(r.ticks.ns0, t.ticks.ns0);
  EXPECT_DOUBLE_EQ(r.ticks.ns_per_tick, t.ticks.ns_per_tick);
  EXPECT_EQ(r.ticks.inject_skew_ns, t.ticks.inject_skew_ns);
  EXPECT_DOUBLE_EQ(r.ticks.inject_drift, t.ticks.inject_drift);
  EXPECT_EQ(r.align.ref_local_ns, t.align.ref_local_ns);
  EXPECT_DOUBLE_EQ(r.align.offset_ns, t.align.offset_ns);
  EXPECT_DOUBLE_EQ(r.align.drift, t.align.drift);
  EXPECT_DOUBLE_EQ(r.align_error_ns, t.align_error_ns);
  ASSERT_EQ(r.comms.size(), t.comms.size());
  for (size_t i = 0; i < t.comms.size(); ++i) {
    const CommRecord &a = r.comms[i], &b = t.comms[i];
    EXPECT_EQ(a.handle, b.handle);
    EXPECT_EQ(a.created_tick, b.created_tick);
    EXPECT_EQ(a.parent, b.parent);
    EXPECT_EQ(a.key_rank, b.key_rank);
    EXPECT_EQ(a.key_counter, b.key_counter);
    EXPECT_EQ(a.local_rank, b.local_rank);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.remote_size, b.remote_size);
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(a.dup_ordinal, b.dup_ordinal);
    EXPECT_EQ(a.creator_call, b.creator_call);
  }
  EXPECT_EQ(r.comm_table.key, t.comm_table.key);
  EXPECT_EQ(r.comm_table.group, t.comm_table.group);
  EXPECT_EQ(r.comm_table.groups, t.comm_table.groups);
  EXPECT_EQ(r.comm_table.world_size, 4);
  EXPECT_EQ(r.comm_table.world_rank(1, 1), 3);
  ASSERT_EQ(r.modules.modules().size(), 2u);
  EXPECT_EQ(r.modules.modules()[0].path, "/usr/bin/app");
  EXPECT_EQ(r.modules.find(0x400123), 0);
  EXPECT_EQ(r.modules.find(0x7f0000001234ull), 1);
  EXPECT_EQ(r.trace_bytes, s0.size() + s1.size());
  ASSERT_EQ(r.threads.size(), 2u);
  EXPECT_EQ(r.threads[0].events.size(), 90u);
  EXPECT_EQ(r.threads[1].events.size(), 7u);
  // the decoded streams equal a direct decode of the same bytes
  for (int th = 0; th < 2; ++th) {
    Stream& s = th ? s1 : s0;
    DecodedThread d;
    TraceDecoder dec(static_cast<uint32_t>(th));
    ASSERT_TRUE(dec.decode(s.chunk->data(), s.ts.pos, &d));
    ASSERT_EQ(d.events.size(), r.threads[static_cast<size_t>(th)].events.size());
    for (size_t i = 0; i < d.events.size(); ++i) {
      const Event &a = d.events[i], &b = r.threads[static_cast<size_t>(th)].events[i];
      EXPECT_EQ(a.call, b.call);
      EXPECT_EQ(a.thread, b.thread);
      EXPECT_EQ(a.t_begin, b.t_begin);
      EXPECT_EQ(a.t_end, b.t_end);
      EXPECT_EQ(a.callsite, b.callsite);
      EXPECT_EQ(a.peer, b.peer);
      EXPECT_EQ(a.tag, b.tag);
      EXPECT_EQ(a.comm, b.comm);
      EXPECT_EQ(a.bytes, b.bytes);
      EXPECT_EQ(a.req, b.req);
      EXPECT_EQ(a.list_count, b.list_count);
    }
    EXPECT_EQ(d.completions.size(), r.threads[static_cast<size_t>(th)].completions.size());
  }
  // resolving a reused communicator handle by time
  EXPECT_EQ(r.comm_record(0x5100, 15), 1);
  EXPECT_EQ(r.comm_record(0x9999, 15), -1);
}

// A stream split over several spans is stored as one concatenated stream.
TEST(TraceFile, SpansConcatenate) {
  // one thread, two chunks: the writer moves on to a new chunk keeping its delta bases
  Stream a;
  some_records(&a.ts, 0, 30, 3);
  const size_t na = a.size();
  Chunk* b = allocate_chunk(1 << 16);
  a.ts.pos = b->data();
  a.ts.end = b->data() + b->capacity;
  some_records(&a.ts, 30, 60, 3);
  const size_t nb = static_cast<size_t>(a.ts.pos - b->data());
  RankTrace t = synthetic_trace();
  std::vector<ThreadStream> streams(1);
  streams[0].spans = {{a.chunk->data(), na}, {b->data(), nb}};
  const std::string path = temp_path("spans.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, t, streams, &err)) << err;
  RankTrace r;
  ASSERT_TRUE(read_trace_file(path, &r, &err)) << err;
  std::remove(path.c_str());
  ASSERT_EQ(r.threads.size(), 1u);
  ASSERT_EQ(r.threads[0].events.size(), 60u);
  // timestamps keep increasing across the span boundary (delta bases carried over)
  for (size_t i = 1; i < 60; ++i) { EXPECT_GT(r.threads[0].events[i].t_begin, r.threads[0].events[i - 1].t_begin) << i; }
  EXPECT_EQ(r.trace_bytes, na + nb);
  free_chunk(b);
}

TEST(TraceFile, MissingAndForeignFiles) {
  RankTrace r;
  std::string err;
  const std::string missing = temp_path("does_not_exist.cpt");
  EXPECT_FALSE(read_trace_file(missing, &r, &err));
  EXPECT_NE(err.find(missing), std::string::npos) << err;

  const std::string foreign = temp_path("foreign.cpt");
  write_all(foreign, std::vector<uint8_t>{'#', '!', '/', 'b', 'i', 'n', '/', 's', 'h', '\n', 0, 0, 0, 0, 0, 0});
  EXPECT_FALSE(read_trace_file(foreign, &r, &err));
  EXPECT_NE(err.find("not a libcpath trace file"), std::string::npos) << err;
  write_all(foreign, {});
  EXPECT_FALSE(read_trace_file(foreign, &r, &err));
  EXPECT_NE(err.find("not a libcpath trace file"), std::string::npos) << err;
  std::remove(foreign.c_str());

  // cannot create
  std::vector<ThreadStream> none;
  EXPECT_FALSE(write_trace_file("/nonexistent-dir/x/trace.cpt", synthetic_trace(), none, &err));
  EXPECT_NE(err.find("cannot create"), std::string::npos) << err;
}

TEST(TraceFile, WrongVersionRejected) {
  Stream s;
  some_records(&s.ts, 5, 1);
  std::vector<ThreadStream> streams(1);
  streams[0].spans = {{s.chunk->data(), s.size()}};
  const std::string path = temp_path("version.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, synthetic_trace(), streams, &err)) << err;
  std::vector<uint8_t> v = read_all(path);
  ASSERT_GT(v.size(), 12u);
  v[8] = static_cast<uint8_t>(kTraceVersion + 1);  // version follows the 8-byte magic
  write_all(path, v);
  RankTrace r;
  EXPECT_FALSE(read_trace_file(path, &r, &err));
  EXPECT_NE(err.find("version"), std::string::npos) << err;
  std::remove(path.c_str());
}

// Every truncation of a valid file is rejected with a message (never accepted, never a
// crash).
TEST(TraceFile, TruncatedFilesRejected) {
  Stream s;
  some_records(&s.ts, 20, 1);
  std::vector<ThreadStream> streams(1);
  streams[0].spans = {{s.chunk->data(), s.size()}};
  const std::string path = temp_path("trunc.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, synthetic_trace(), streams, &err)) << err;
  const std::vector<uint8_t> v = read_all(path);
  for (size_t n = 0; n < v.size(); ++n) {
    write_all(path, std::vector<uint8_t>(v.begin(), v.begin() + static_cast<long>(n)));
    RankTrace r;
    std::string e;
    EXPECT_FALSE(read_trace_file(path, &r, &e)) << "truncated to " << n << " of " << v.size() << " bytes";
    EXPECT_FALSE(e.empty()) << n;
    EXPECT_NE(e.find(path), std::string::npos) << "the message names the file: " << e;
  }
  std::remove(path.c_str());
}

// A file cut inside the 4-byte section count (12..15 bytes long: magic and version intact) is
// rejected, not read as a trace with no sections.
TEST(TraceFile, TruncatedSectionCountRejected) {
  std::vector<ThreadStream> none;
  const std::string path = temp_path("count.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, synthetic_trace(), none, &err)) << err;
  const std::vector<uint8_t> v = read_all(path);
  for (size_t n = 12; n < 16; ++n) {
    write_all(path, std::vector<uint8_t>(v.begin(), v.begin() + static_cast<long>(n)));
    RankTrace r;
    EXPECT_FALSE(read_trace_file(path, &r, &err)) << "a " << n << "-byte file was accepted";
  }
  std::remove(path.c_str());
}

// A corrupt record stream is reported with the thread it is in.
TEST(TraceFile, CorruptStreamRejected) {
  Stream s;
  some_records(&s.ts, 20, 1);
  std::vector<uint8_t> bad(s.chunk->data(), s.ts.pos);
  bad.push_back(0x00);  // a record header with call id 0
  bad.push_back(0x00);
  std::vector<ThreadStream> streams(2);
  streams[0].thread = 0;
  streams[0].spans = {{s.chunk->data(), s.size()}};
  streams[1].thread = 5;
  streams[1].spans = {{bad.data(), bad.size()}};
  const std::string path = temp_path("corrupt.cpt");
  std::string err;
  ASSERT_TRUE(write_trace_file(path, synthetic_trace(), streams, &err)) << err;
  RankTrace r;
  EXPECT_FALSE(read_trace_file(path, &r, &err));
  EXPECT_NE(err.find("thread 5"), std::string::npos) << err;
  EXPECT_NE(err.find("call id"), std::string::npos) << err;
  // a section length larger than the file
  std::vector<uint8_t> v = read_all(path);
  const size_t first_section_len = 8 + 4 + 4 + 4 + 4;  // magic, version, count, type, flags
  v[first_section_len + 7] = 0x7f;                       // most significant byte of the length
  write_all(path, v);
  EXPECT_FALSE(read_trace_file(path, &r, &err));
  EXPECT_NE(err.find("truncated section"), std::string::npos) << err;
  std::remove(path.c_str());
}

// The section byte counts the crash writer announces before streaming the payload (it cannot
// buffer) match what the shared writers put, resolved or not; a wrong count would make the
// reader misparse every later section of a crash trace.
TEST(TraceFile, SectionByteCountsMatchPayloads) {
  std::vector<CommRecord> comms(3);
  comms[1].size = 4;
  comms[2].flags = kCommByCall;
  CommTable table;
  table.key = {1, 2, 3};
  table.group = {0, 1, 1};
  table.groups = {{0, 1, 2, 3}, {3, 1}};
  for (const CommTable* t : {static_cast<const CommTable*>(nullptr), static_cast<const CommTable*>(&table)}) {
    ByteWriter w;
    put_comms_section(w, comms.data(), comms.size(), t);
    EXPECT_EQ(w.bytes().size(), comms_section_bytes(comms.size(), t)) << (t ? "resolved" : "unresolved");
  }
  ByteWriter empty;
  put_comms_section(empty, comms.data(), 0, nullptr);
  EXPECT_EQ(empty.bytes().size(), comms_section_bytes(0, nullptr));
  std::vector<CommTopology> topos(2);
  topos[0].sources = {1, -2, 3, 0};
  topos[0].destinations = topos[0].sources;
  topos[1].sources = {2};
  topos[1].destinations = {0, 1, 3};
  ByteWriter tw;
  put_topology_section(tw, topos.data(), topos.size());
  EXPECT_EQ(tw.bytes().size(), topology_section_bytes(topos.data(), topos.size()));
  ByteWriter cw;
  put_clock_section(cw, TickModel{}, AlignModel{}, -1.0);
  EXPECT_EQ(cw.bytes().size(), kClockSectionBytes);
}
