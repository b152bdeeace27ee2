// Trace record encoding (cpath::RecordWriter, src/record_writer.h) and decoding
// (cpath::TraceDecoder): every field of every call round-trips, special ranks and tags are
// canonicalised, communicators are MRU-coded, request handles delta-coded, corrupt or
// truncated input is rejected, and a typical MPI_Send record stays small.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <map>
#include <set>
#include <cstring>
#include <string>
#include <type_traits>
#include <random>
#include <tuple>
#include <vector>

#include "call_info.h"
#include "record_writer.h"
#include "thread_state.h"
#include "trace_decoder.h"
#include "trace_store.h"
#include "mpi_test_env.h"

using namespace cpath;

namespace {

// Only the MPI_Status cancelled-bit test needs MPI (MPI_Status_set_cancelled,
// PMPI_Test_cancelled); it initialises MPI on first use, and this finalises it.
using cpath_test::ensure_mpi;

using cpath_test::comm_from_bits;
using cpath_test::handle_from_bits;
// What survives the trip through an MPI_Comm: all 64 bits with Open MPI's pointer handles, the
// low 32 with MPICH's integer handles.
uint64_t as_comm_bits(uint64_t bits) { return bits_Comm(comm_from_bits(bits)); }

// A ThreadState writing into one large chunk set up by hand (no TraceStore involved).
struct Buffer {
  ThreadState ts;
  Chunk* chunk;
  explicit Buffer(size_t cap = 1 << 20) {
    chunk = allocate_chunk(cap);
    ts.head = ts.current = chunk;
    ts.pos = chunk->data();
    ts.end = chunk->data() + chunk->capacity;
  }
  ~Buffer() {
    ts.head = ts.current = nullptr;
    free_chunk(chunk);
  }
  const uint8_t* begin() const { return chunk->data(); }
  const uint8_t* end() const { return ts.pos; }
  size_t size() const { return static_cast<size_t>(ts.pos - chunk->data()); }
};

struct Comp {
  uint64_t req;
  int source, tag;
  bool cancelled;
};

// Everything a record may hold; written in the call table's field order, the way the
// generated wrappers do.
struct Rec {
  unsigned call = kCall_MPI_Send;
  unsigned flags = 0;
  uint64_t t0 = 0, t1 = 0, site = 0;
  int peer = 0, tag = 0, peer2 = 0, tag2 = 0, root = 0;
  uint64_t comm = 0, bytes = 0, req = 0, req2 = 0, obj = 0;
  std::vector<uint64_t> reqlist;
  std::vector<Comp> comps;
  std::vector<uint64_t> polls;  // Test family: the requests polled
  int flag = 0, newcomm = 0;
  int64_t aux = 0;
};

void write(ThreadState* ts, const Rec& r, bool poll = false) {
  RecordWriter w(ts, r.call, r.t0, r.t1, reinterpret_cast<const void*>(static_cast<uintptr_t>(r.site)), r.flags,
                 32 * r.comps.size() + 12 * r.reqlist.size() + 12 * r.polls.size());
  const uint32_t f = kCallInfo[r.call].fields;
  if (f & kField_peer) w.peer(r.peer);
  if (f & kField_tag) w.tag(r.tag);
  if (f & kField_peer2) w.peer2(r.peer2);
  if (f & kField_tag2) w.tag2(r.tag2);
  if (f & kField_comm) w.comm(comm_from_bits(r.comm));
  if (f & kField_root) w.root(r.root);
  if (f & kField_bytes) w.bytes(r.bytes);
  if (f & kField_req) w.req(r.req);
  if (f & kField_req2) w.req2(r.req2);
  if (f & kField_reqlist) w.reqlist(static_cast<int>(r.reqlist.size()), r.reqlist.data());
  if (f & kField_completions) {
    w.completions(static_cast<int>(r.comps.size()));
    for (const Comp& c : r.comps) {
      MPI_Status st;
      std::memset(&st, 0, sizeof st);
      st.MPI_SOURCE = c.source;
      st.MPI_TAG = c.tag;
      if (c.cancelled) MPI_Status_set_cancelled(&st, 1);
      w.completion(c.req, &st);
    }
  }
  if (f & kField_flag) w.flag(r.flag);
  if (f & kField_newcomm) w.newcomm(r.newcomm);
  if (f & kField_aux) w.aux(r.aux);
  if (f & kField_obj) w.obj(r.obj);
  if (f & kField_polls) w.polls(static_cast<int>(r.polls.size()), r.polls.data());
  if (poll) w.finish_poll();  // as the generated wrappers of the Test family and Iprobe
  else w.finish();
}

// Compares a decoded event with what was written (only the fields the call records).
void expect_event(const Rec& r, const Event& e, const DecodedThread& d, const char* where) {
  SCOPED_TRACE(where);
  SCOPED_TRACE(call_info(r.call).name);
  const uint32_t f = kCallInfo[r.call].fields;
  EXPECT_EQ(e.call, r.call);
  EXPECT_EQ(e.flags, r.flags);
  EXPECT_EQ(e.t_begin, r.t0);
  EXPECT_EQ(e.t_end, r.t1);
  EXPECT_EQ(e.callsite, r.site);
  if (f & kField_peer) { EXPECT_EQ(e.peer, canonical_rank(r.peer)); }
  if (f & kField_tag) { EXPECT_EQ(e.tag, canonical_tag(r.tag)); }
  if (f & kField_peer2) { EXPECT_EQ(e.peer2, canonical_rank(r.peer2)); }
  if (f & kField_tag2) { EXPECT_EQ(e.tag2, canonical_tag(r.tag2)); }
  if (f & kField_comm) { EXPECT_EQ(e.comm, as_comm_bits(r.comm)); }
  if (f & kField_root) { EXPECT_EQ(e.root, canonical_rank(r.root)); }
  if (f & kField_bytes) { EXPECT_EQ(e.bytes, r.bytes); }
  if (f & kField_req) { EXPECT_EQ(e.req, r.req); }
  if (f & kField_req2) { EXPECT_EQ(e.req2, r.req2); }
  if (f & kField_obj) { EXPECT_EQ(e.obj, r.obj); }
  if (f & kField_reqlist) {
    ASSERT_EQ(e.list_count, r.reqlist.size());
    for (size_t i = 0; i < r.reqlist.size(); ++i) { EXPECT_EQ(d.reqlists[e.list_begin + i], r.reqlist[i]) << i; }
  }
  if (f & kField_completions) {
    ASSERT_EQ(e.list_count, r.comps.size());
    for (size_t i = 0; i < r.comps.size(); ++i) {
      const Completion& c = d.completions[e.list_begin + i];
      EXPECT_EQ(c.req, r.comps[i].req) << i;
      EXPECT_EQ(c.source, canonical_rank(r.comps[i].source)) << i;
      EXPECT_EQ(c.tag, canonical_tag(r.comps[i].tag)) << i;
      EXPECT_EQ(c.cancelled, r.comps[i].cancelled) << i;
    }
  }
  if (f & kField_flag) { EXPECT_EQ(e.flag, r.flag ? 1 : 0); }
  if (f & kField_newcomm) { EXPECT_EQ(e.newcomm, r.newcomm); }
  if (f & kField_aux) { EXPECT_EQ(e.aux, r.aux); }
  if (f & kField_polls) {
    ASSERT_EQ(e.poll_count, r.polls.size());
    for (size_t i = 0; i < r.polls.size(); ++i) { EXPECT_EQ(d.polls[e.poll_begin + i], r.polls[i]) << i; }
  }
}

// Polls merge within 5 ticks of each other for the test's length (the option's value
// otherwise).
struct MergeBound {
  uint64_t saved = g_poll_merge_ticks;
  MergeBound() { g_poll_merge_ticks = 5; }
  ~MergeBound() { g_poll_merge_ticks = saved; }
};

DecodedThread decode_ok(const Buffer& b, uint32_t thread = 0) {
  DecodedThread d;
  TraceDecoder dec(thread);
  EXPECT_TRUE(dec.decode(b.begin(), b.end(), &d)) << dec.error();
  return d;
}

}  // namespace

TEST(RecordCodec, CanonicalRanksAndTags) {
  EXPECT_EQ(canonical_rank(0), 0);
  EXPECT_EQ(canonical_rank(12345), 12345);
  EXPECT_EQ(canonical_rank(MPI_ANY_SOURCE), kRankAnySource);
  EXPECT_EQ(canonical_rank(MPI_PROC_NULL), kRankProcNull);
  EXPECT_EQ(canonical_rank(MPI_ROOT), kRankRoot);
  EXPECT_EQ(canonical_rank(MPI_UNDEFINED), kRankOther);
  EXPECT_EQ(canonical_tag(MPI_ANY_TAG), kTagAny);
  EXPECT_EQ(canonical_tag(0), 0);
  EXPECT_EQ(canonical_tag(32767), 32767);
  // the canonical values are distinct
  std::vector<int32_t> v{kRankAnySource, kRankProcNull, kRankRoot, kRankOther};
  std::sort(v.begin(), v.end());
  EXPECT_EQ(std::unique(v.begin(), v.end()), v.end());
}

TEST(RecordCodec, HandleBits) {
  EXPECT_EQ(bits_Request(MPI_REQUEST_NULL), 0u);
  EXPECT_EQ(bits_Message(MPI_MESSAGE_NULL), 0u);
  EXPECT_EQ(bits_Message(MPI_MESSAGE_NO_PROC), 0u);
  EXPECT_NE(bits_Comm(MPI_COMM_WORLD), 0u);
  EXPECT_NE(bits_Comm(MPI_COMM_WORLD), bits_Comm(MPI_COMM_SELF));
}

// Every call of the call table, with field values chosen per call id, round-trips.
TEST(RecordCodec, EveryCallRoundTrips) {
  Buffer b(4 << 20);
  b.ts.index = 3;
  const uint64_t comms[6] = {0x55550000a000ull, 0x55550000b000ull, 0x7f0000001234ull, 0x10ull, 0x55550000a040ull,
                             0xffffffffffffff00ull};
  std::vector<Rec> recs;
  uint64_t t = 1000000;
  for (unsigned c = 1; c < kNumCalls; ++c) {
    if (kCallInfo[c].kind == CallKind::Gap) continue;  // not an event (GapRecordsAreNotEvents)
    Rec r;
    r.call = c;
    r.flags = c % 8;
    r.t0 = t + (c % 3 == 0 ? 0 : 17 * c);
    r.t1 = r.t0 + 100 * c;
    t = r.t1;
    if (c % 5 == 0) t -= 50;  // next record begins before this one ended (other thread's clock)
    r.site = 0x400000 + 0x10 * c + (c % 2 ? 0x7f0000000000ull : 0);
    r.peer = (c % 4 == 0) ? MPI_ANY_SOURCE : (c % 4 == 1) ? MPI_PROC_NULL : static_cast<int>(c * 37);
    r.tag = (c % 3 == 0) ? MPI_ANY_TAG : static_cast<int>(c * 1001);
    r.peer2 = (c % 2) ? MPI_ANY_SOURCE : static_cast<int>(c);
    r.tag2 = (c % 2) ? static_cast<int>(c) : MPI_ANY_TAG;
    r.root = (c % 6 == 0) ? MPI_ROOT : static_cast<int>(c % 4);
    r.comm = comms[c % 6];
    r.bytes = (c % 2) ? (1ull << 40) + c : c * 8;
    r.req = (c % 3 == 0) ? 0 : 0x7f0000001000ull + 64 * c;
    r.req2 = (c % 4 == 0) ? 0 : 0x560000002000ull - 8 * c;
    r.obj = (c % 5 == 0) ? 0 : 0x7f1200003000ull + 16 * c;
    for (unsigned i = 0; i < c % 5; ++i) r.reqlist.push_back(i == 1 ? 0 : 0x560000000000ull + 0x40 * (c + i));
    for (unsigned i = 0; i < c % 4; ++i)
      r.comps.push_back({i == 2 ? 0 : 0x560000003000ull + 0x40 * i, i == 1 ? MPI_PROC_NULL : static_cast<int>(i),
                         i == 0 ? MPI_ANY_TAG : static_cast<int>(c + i), false});
    r.flag = c % 2;
    r.newcomm = static_cast<int>(c % 7);
    r.aux = -static_cast<int64_t>(c) * 1000;
    for (unsigned i = 0; i < c % 3; ++i) r.polls.push_back(i == 1 ? 0 : 0x560000004000ull + 0x40 * (c + i));
    write(&b.ts, r);
    recs.push_back(r);
  }
  EXPECT_EQ(b.ts.events, recs.size());
  DecodedThread d = decode_ok(b, 3);
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(d.events[i].thread, 3u);
    expect_event(recs[i], d.events[i], d, "every call");
  }
}

// More than four distinct communicators: MRU hits cost one byte, misses carry the handle,
// and the decoder's move-to-front list follows the writer's.
TEST(RecordCodec, CommunicatorMru) {
  const uint64_t h[7] = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x7fffffff0000ull};
  const int pattern[] = {0, 1, 2, 3, 4, 0, 5, 1, 1, 6, 2, 3, 4, 5, 6, 0, 0, 0, 3, 6, 2, 1, 4, 5};
  Buffer b;
  std::vector<Rec> recs;
  std::vector<size_t> sizes;
  for (int i : pattern) {
    Rec r;
    r.call = kCall_MPI_Barrier;
    r.comm = h[i];
    const size_t before = b.size();
    write(&b.ts, r);
    sizes.push_back(b.size() - before);
    recs.push_back(r);
  }
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) { EXPECT_EQ(d.events[i].comm, as_comm_bits(recs[i].comm)) << "record " << i; }
  // Barrier: header, begin, duration, call site (1 byte each here) + comm code
  ASSERT_LT(static_cast<unsigned>(kCall_MPI_Barrier), 16u);  // one header byte
  EXPECT_EQ(sizes[0], 4u + 1 + 2);  // miss: code 4 + varint(0x1000) (2 bytes)
  EXPECT_EQ(sizes[16], 5u);          // h[0] again right after itself: MRU slot 0
  EXPECT_EQ(sizes[17], 5u);
}

// Request handles are delta-coded against the last non-zero handle; zeros (MPI_REQUEST_NULL,
// failed calls) do not disturb the base.
TEST(RecordCodec, RequestDeltasAndNullHandles) {
  Buffer b;
  std::vector<Rec> recs;
  const uint64_t reqs[] = {0x7f1234560000ull, 0, 0x7f1234560040ull, 0x7f1234560040ull, 0, 0,
                           0x55aa00000010ull, 0x7f1234560080ull, 1, ~0ull - 7, 0};
  for (uint64_t q : reqs) {
    Rec r;
    r.call = kCall_MPI_Isend;
    r.req = q;
    write(&b.ts, r);
    recs.push_back(r);
  }
  Rec s;  // Startall with null entries in the list
  s.call = kCall_MPI_Startall;
  s.reqlist = {0x7f1234560040ull, 0, 0x7f1234560000ull, 0};
  write(&b.ts, s);
  recs.push_back(s);
  Rec im;  // Imrecv: message handle then request handle
  im.call = kCall_MPI_Imrecv;
  im.req = 0x55aa00000100ull;
  im.req2 = 0;
  write(&b.ts, im);
  recs.push_back(im);
  Rec empty;  // Startall / Waitall of zero requests
  empty.call = kCall_MPI_Startall;
  write(&b.ts, empty);
  recs.push_back(empty);
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) expect_event(recs[i], d.events[i], d, "request deltas");
}

// Completion lists: sources canonicalised, the cancelled bit carried (written only once the
// application has called MPI_Cancel, which sets RecordWriter::cancel_seen_).
TEST(RecordCodec, CompletionListsWithCancelledBit) {
  ensure_mpi();
  Buffer b;
  Rec r;
  r.call = kCall_MPI_Waitall;
  r.comps = {{0x1000, 3, 7, false}, {0x2000, MPI_ANY_SOURCE, MPI_ANY_TAG, true}, {0x3000, MPI_PROC_NULL, 0, false},
             {0, 1, 1, true}};
  const bool saved = RecordWriter::cancel_seen_.load();
  RecordWriter::cancel_seen_.store(true);
  write(&b.ts, r);
  // Before any MPI_Cancel the status is not asked: the bit reads as not cancelled.
  RecordWriter::cancel_seen_.store(false);
  Rec r2 = r;
  write(&b.ts, r2);
  RecordWriter::cancel_seen_.store(saved);
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), 2u);
  expect_event(r, d.events[0], d, "with cancel seen");
  for (Comp& c : r2.comps) c.cancelled = false;
  expect_event(r2, d.events[1], d, "without cancel seen");
}

TEST(RecordCodec, HeaderFlagsTimesAndCallSites) {
  Buffer b;
  std::vector<Rec> recs;
  uint64_t t = 5;
  for (unsigned flags = 0; flags < 8; ++flags) {
    for (unsigned call : {kCall_MPI_Recv, kCall_MPI_Send, kCall_MPI_Recv}) {
      Rec r;
      r.call = call;
      r.flags = flags;
      r.t0 = t;
      r.t1 = t + flags * 1000000007ull;
      t = r.t1 - (flags % 2 ? 3 : 0);  // a later record may begin before the previous ended
      r.site = flags % 3 ? 0x401000 : 0x7ffff7a01000ull;  // call sites jump both ways
      r.peer = static_cast<int>(flags);
      r.tag = static_cast<int>(flags * 3);
      write(&b.ts, r);
      recs.push_back(r);
    }
  }
  Rec init;  // aux: MPI_Init's provided level is -1
  init.call = kCall_MPI_Init;
  init.aux = -1;
  init.t0 = 0;  // earlier than everything before
  init.t1 = ~0ull >> 2;
  write(&b.ts, init);
  recs.push_back(init);
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) expect_event(recs[i], d.events[i], d, "flags/times/sites");
}

TEST(RecordCodec, DecoderSpansConcatenate) {
  // Decoding two halves with one decoder equals decoding the whole (chunks of one thread).
  Buffer b;
  std::vector<Rec> recs;
  std::vector<size_t> ends;
  for (int i = 0; i < 40; ++i) {
    Rec r;
    r.call = i % 3 ? kCall_MPI_Send : kCall_MPI_Irecv;
    r.t0 = 100 * i;
    r.t1 = 100 * i + 10;
    r.peer = i % 4;
    r.tag = i;
    r.comm = 0x1000 + 0x100 * (i % 6);
    r.bytes = i * 8;
    r.req = i % 3 ? 0 : 0x5000 + i;
    write(&b.ts, r);
    recs.push_back(r);
    ends.push_back(b.size());
  }
  DecodedThread d;
  TraceDecoder dec(0);
  const uint8_t* mid = b.begin() + ends[19];
  ASSERT_TRUE(dec.decode(b.begin(), mid, &d)) << dec.error();
  ASSERT_TRUE(dec.decode(mid, b.end(), &d)) << dec.error();
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) expect_event(recs[i], d.events[i], d, "spans");
}

// Every truncation of a valid stream either ends at a record boundary (and decodes that
// many records) or is rejected with an error; nothing is read past the end.
TEST(RecordCodec, TruncatedInputRejected) {
  Buffer b;
  std::vector<size_t> boundaries{0};
  for (unsigned c = 1; c < kNumCalls; c += 3) {
    if (kCallInfo[c].kind == CallKind::Gap) continue;
    Rec r;
    r.call = c;
    r.t0 = 1000 * c;
    r.t1 = r.t0 + 1;
    r.peer = 70000;
    r.comm = 0x7f0000000000ull + c;
    r.bytes = 1ull << 33;
    r.req = 0x7f0000100000ull;
    r.reqlist = {1, 2, 3};
    r.comps = {{0x10, 1, 2, false}, {0x20, 3, 4, false}};
    r.polls = {0x10, 0x30};
    r.aux = 123456789;
    write(&b.ts, r);
    boundaries.push_back(b.size());
  }
  const std::vector<uint8_t> all(b.begin(), b.end());
  for (size_t n = 0; n < all.size(); ++n) {
    // an exact copy of the prefix, so reading past it would be a heap overflow
    std::vector<uint8_t> prefix(all.begin(), all.begin() + static_cast<long>(n));
    DecodedThread d;
    TraceDecoder dec(0);
    const bool ok = dec.decode(prefix.data(), prefix.data() + prefix.size(), &d);
    const auto it = std::find(boundaries.begin(), boundaries.end(), n);
    if (it != boundaries.end()) {
      EXPECT_TRUE(ok) << "cut at record boundary " << n << ": " << dec.error();
      EXPECT_EQ(d.events.size(), static_cast<size_t>(it - boundaries.begin()));
    } else {
      EXPECT_FALSE(ok) << "cut at " << n << " accepted";
      EXPECT_FALSE(dec.error().empty());
    }
  }
}

// A polling loop repeats one list: the repeat costs one byte, decodes to the same list (one
// stored copy), and a changed list is written out again.
TEST(RecordCodec, PollListsRepeatInOneByte) {
  Buffer b;
  std::vector<Rec> recs;
  std::vector<size_t> sizes;
  const std::vector<std::vector<uint64_t>> lists = {{0x7f0000001000ull, 0x7f0000001040ull}, {0x7f0000001000ull, 0x7f0000001040ull},
                                                    {0x7f0000001000ull, 0x7f0000001040ull}, {0x7f0000001000ull, 0},
                                                    {0x7f0000001000ull}, {0x7f0000001000ull}, {}, {}};
  for (size_t i = 0; i < lists.size(); ++i) {
    Rec r;
    r.call = i < 4 ? kCall_MPI_Testsome : kCall_MPI_Test;
    r.polls = lists[i];
    const size_t before = b.size();
    write(&b.ts, r);
    sizes.push_back(b.size() - before);
    recs.push_back(r);
  }
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) expect_event(recs[i], d.events[i], d, "polls");
  EXPECT_EQ(sizes[1], sizes[2]);
  EXPECT_LT(sizes[1] + 8, sizes[0]) << "a repeated list is not written again";
  EXPECT_EQ(d.events[1].poll_begin, d.events[0].poll_begin) << "one stored copy per repeated list";
  EXPECT_EQ(d.events[5].poll_begin, d.events[4].poll_begin);
  EXPECT_NE(d.events[3].poll_begin, d.events[0].poll_begin);
}

// A run of identical unsuccessful polls begun within the merge bound of one another is one
// event from the first merged poll's begin to the last one's end, with the polls it stands
// for counted; a longer gap, a different call, a successful poll or any other record ends it,
// and every time after it decodes as written.
TEST(RecordCodec, IdenticalUnsuccessfulPollsMergeIntoOneEvent) {
  MergeBound merge;
  Buffer b;
  const uint64_t a = 0x7f0000001000ull;
  auto rec = [&](unsigned call, uint64_t t0, uint64_t t1) {
    Rec r;
    r.call = call;
    r.t0 = t0;
    r.t1 = t1;
    r.site = 0x400100;
    r.comm = 0x5000;
    r.polls = {a};
    r.req = a;
    r.peer = 1;
    r.tag = 7;
    return r;
  };
  write(&b.ts, rec(kCall_MPI_Irecv, 0, 1));
  // First Test (its list written out), then five Tests 1 tick apart: the second is written
  // (its list coded as "the previous one"), the next three merge into it.
  for (uint64_t t = 10; t <= 18; t += 2) write(&b.ts, rec(kCall_MPI_Test, t, t + 1), true);
  write(&b.ts, rec(kCall_MPI_Test, 30, 31), true);  // 11 ticks later: a new event...
  write(&b.ts, rec(kCall_MPI_Test, 32, 33), true);  // ...into which this one merges
  write(&b.ts, rec(kCall_MPI_Iprobe, 34, 35), true);  // another call: not merged
  write(&b.ts, rec(kCall_MPI_Iprobe, 36, 37), true);  // merged into the Iprobe (same key)
  Rec found = rec(kCall_MPI_Iprobe, 38, 39);
  found.flag = 1;
  write(&b.ts, found, true);  // found: never merged
  Rec done = rec(kCall_MPI_Test, 40, 41);
  done.comps = {{a, 1, 7, false}};
  write(&b.ts, done, true);  // completed: never merged
  write(&b.ts, rec(kCall_MPI_Test, 42, 43), true);
  write(&b.ts, rec(kCall_MPI_Test, 44, 45), true);
  write(&b.ts, rec(kCall_MPI_Send, 50, 51));  // ends that run
  DecodedThread d = decode_ok(b);
  const std::vector<std::tuple<unsigned, uint64_t, uint64_t>> want = {
      {kCall_MPI_Irecv, 0, 1},   {kCall_MPI_Test, 10, 11},  {kCall_MPI_Test, 12, 19},  {kCall_MPI_Test, 30, 33},
      {kCall_MPI_Iprobe, 34, 37}, {kCall_MPI_Iprobe, 38, 39}, {kCall_MPI_Test, 40, 41}, {kCall_MPI_Test, 42, 45},
      {kCall_MPI_Send, 50, 51}};
  ASSERT_EQ(d.events.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(d.events[i].call, std::get<0>(want[i]));
    EXPECT_EQ(d.events[i].t_begin, std::get<1>(want[i]));
    EXPECT_EQ(d.events[i].t_end, std::get<2>(want[i]));
  }
  EXPECT_EQ(d.events[5].flag, 1);
  EXPECT_EQ(d.events[6].list_count, 1u) << "the completing Test keeps its completion";
  EXPECT_EQ(merged_polls(d), 6u);
  const std::vector<std::pair<uint32_t, uint32_t>> reps = {{2, 3}, {3, 1}, {4, 1}, {7, 1}};
  EXPECT_EQ(d.repeats, reps);
  EXPECT_EQ(d.events[8].peer, 1) << "the bases after a run are the decoder's too";

  // Equal bytes that mean other values: against the previous call site, handle, list or
  // communicator order. Merged, they would leave the decoder's bases behind the writer's.
  Buffer c;
  std::vector<Rec> sep;
  Rec r1 = rec(kCall_MPI_Test, 10, 11);
  Rec r2 = rec(kCall_MPI_Test, 12, 13);
  r2.site = 0x400200;  // another call site, same list ("the previous one")
  Rec r3 = rec(kCall_MPI_Test, 14, 15);
  r3.polls = {a + 16};  // lists a+16, a+32, a+48: each one delta of +16 from the last handle
  Rec r4 = rec(kCall_MPI_Test, 16, 17);
  r4.polls = {a + 32};
  r4.site = r3.site = r2.site;
  Rec r5 = rec(kCall_MPI_Test, 18, 19);
  r5.polls = {a + 48};
  r5.site = r2.site;
  Rec p1 = rec(kCall_MPI_Iprobe, 20, 21), p2 = rec(kCall_MPI_Iprobe, 22, 23), p3 = rec(kCall_MPI_Iprobe, 24, 25);
  p1.comm = 0x6000;  // communicators 0x5000 then 0x6000 at the front; p2 and p3 are one back (code 1)
  p2.comm = 0x5000;
  p3.comm = 0x6000;
  for (const Rec& r : {r1, r2, r3, r4, r5, p1, p2, p3}) {
    write(&c.ts, r, true);
    sep.push_back(r);
  }
  write(&c.ts, rec(kCall_MPI_Send, 30, 31));
  DecodedThread dc = decode_ok(c);
  ASSERT_EQ(dc.events.size(), sep.size() + 1);
  for (size_t i = 0; i < sep.size(); ++i) expect_event(sep[i], dc.events[i], dc, "not merged");
  EXPECT_EQ(merged_polls(dc), 0u);

  // Off (bound 0): every poll is a record.
  g_poll_merge_ticks = 0;
  Buffer off;
  for (uint64_t t = 10; t <= 18; t += 2) write(&off.ts, rec(kCall_MPI_Test, t, t + 1), true);
  EXPECT_EQ(decode_ok(off).events.size(), 5u);
}

// What a poll asked, whatever the bytes: its call, site and every field but the times.
using PollKey = std::tuple<unsigned, uint64_t, std::vector<uint64_t>, uint64_t, int32_t, int32_t, uint64_t>;
PollKey key_of(const Rec& r) {
  const uint32_t f = kCallInfo[r.call].fields;
  return PollKey(r.call, r.site, (f & kField_polls) ? r.polls : std::vector<uint64_t>{},
                 (f & kField_comm) ? as_comm_bits(r.comm) : 0, (f & kField_peer) ? canonical_rank(r.peer) : 0,
                 (f & kField_tag) ? canonical_tag(r.tag) : 0, (f & kField_obj) ? r.obj : 0);
}
PollKey key_of(const Event& e, const DecodedThread& d) {
  const uint32_t f = kCallInfo[e.call].fields;
  std::vector<uint64_t> polls;
  if (f & kField_polls) polls.assign(d.polls.begin() + e.poll_begin, d.polls.begin() + e.poll_begin + e.poll_count);
  return PollKey(e.call, e.callsite, polls, (f & kField_comm) ? e.comm : 0, (f & kField_peer) ? e.peer : 0,
                 (f & kField_tag) ? e.tag : 0, (f & kField_obj) ? e.obj : 0);
}

// Writes `recs` (polls as the Test family and Iprobe write them), decodes, and checks what the
// analysis relies on, independently of how runs were cut: every record that is not an
// unsuccessful poll decodes as written and in order; every decoded poll is one that was made
// (its key, at a begin it had), and each poll key stands for as many calls as were made; the
// decoded events are in time order. Returns the decoded thread.
DecodedThread check_polls_round_trip(const std::vector<std::pair<Rec, bool>>& recs) {
  Buffer b(16 << 20);
  std::map<PollKey, uint64_t> made;
  std::set<std::pair<PollKey, uint64_t>> begins;
  std::vector<const Rec*> kept;
  for (const auto& [r, poll] : recs) {
    write(&b.ts, r, poll);
    const bool unsuccessful = poll && r.flag == 0 && r.comps.empty();
    if (unsuccessful) {
      ++made[key_of(r)];
      begins.emplace(key_of(r), r.t0);
    } else {
      kept.push_back(&r);
    }
  }
  DecodedThread d = decode_ok(b);
  std::map<PollKey, uint64_t> seen;
  std::vector<uint64_t> calls(d.events.size(), 1);
  for (const auto& [ev, n] : d.repeats) calls[ev] += n;
  size_t next_kept = 0;
  for (size_t i = 0; i < d.events.size(); ++i) {
    const Event& e = d.events[i];
    if (i > 0) { EXPECT_LE(d.events[i - 1].t_end, e.t_begin) << i; }
    const bool unsuccessful = (kCallInfo[e.call].fields & (kField_flag | kField_polls)) && e.flag == 0 &&
                              !((kCallInfo[e.call].fields & kField_completions) && e.list_count);
    if (unsuccessful && begins.count({key_of(e, d), e.t_begin})) {
      seen[key_of(e, d)] += calls[i];
      continue;
    }
    EXPECT_EQ(calls[i], 1u) << "only unsuccessful polls stand for others, event " << i;
    if (next_kept < kept.size()) expect_event(*kept[next_kept++], e, d, "kept");
  }
  EXPECT_EQ(next_kept, kept.size()) << "every record that is not an unsuccessful poll decodes";
  EXPECT_EQ(seen, made) << "each poll key stands for the calls made with it";
  return d;
}

// A loop that polls several things in turn (two requests at two call sites, Iprobes on two
// communicators) repeats a cycle of records: merged, the cycle's records stand for every poll
// made, its last one lasts until the loop's last poll, and whatever follows (a list coded as
// the previous one, a handle, a communicator's place in the MRU list, a call site's delta)
// decodes against the bases the loop left, whichever poll of the cycle it stopped at.
TEST(RecordCodec, CyclesOfPollsMergeIntoTheirRecords) {
  MergeBound merge;
  const uint64_t a = 0x7f0000001000ull, b = 0x7f0000001800ull, c = 0x7f0000000400ull;
  auto test = [](uint64_t h, uint64_t site) {
    Rec r;
    r.call = kCall_MPI_Test;
    r.site = site;
    r.polls = {h};
    return r;
  };
  auto iprobe = [](uint64_t comm, uint64_t site) {
    Rec r;
    r.call = kCall_MPI_Iprobe;
    r.site = site;
    r.comm = comm;
    r.peer = 1;
    r.tag = 3;
    return r;
  };
  for (unsigned period : {2u, 3u, 5u}) {
    for (unsigned stop = 0; stop < period; ++stop) {
      SCOPED_TRACE(testing::Message() << "period " << period << ", loop stops after poll " << stop);
      std::vector<Rec> cycle = {test(a, 0x400100), test(b, 0x400200), iprobe(0x5000, 0x400300), iprobe(0x6000, 0x400300),
                                test(c, 0x400100)};
      cycle.resize(period);
      std::vector<std::pair<Rec, bool>> recs;
      uint64_t t = 0;
      auto add = [&](Rec r, bool poll, uint64_t gap = 1) {
        r.t0 = t + gap;
        r.t1 = r.t0 + 1;
        t = r.t1;
        recs.emplace_back(r, poll);
      };
      Rec irecv;
      irecv.call = kCall_MPI_Irecv;
      irecv.comm = 0x5000;
      for (uint64_t h : {a, b, c}) {
        irecv.req = h;
        add(irecv, false);
      }
      const unsigned polls = 40 * period + stop;
      for (unsigned i = 0; i < polls; ++i) add(cycle[i % period], true);
      // After the loop, records coded against each base the loop moved.
      Rec same_list = test(a, 0x400100);  // Test(a) again: its list may be "the previous one"
      add(same_list, true, 20);           // a gap beyond the bound: a record of its own
      Rec isend;
      isend.call = kCall_MPI_Isend;
      isend.comm = 0x6000;
      isend.req = b + 0x40;
      add(isend, false);
      add(iprobe(0x5000, 0x400300), true, 20);
      Rec done = test(b, 0x400200);
      done.comps = {{b, 1, 7, false}};
      add(done, true);
      Rec send;
      send.call = kCall_MPI_Send;
      send.comm = 0x6000;
      add(send, false);
      DecodedThread d = check_polls_round_trip(recs);
      // The cycle's first records (a call site's first record is coded unlike its next ones),
      // then the cycle twice: after that, it merges.
      EXPECT_LE(d.events.size(), 3 + 3 * period + 5) << "the loop is a few records";
      EXPECT_EQ(merged_polls(d) + d.events.size(), recs.size());
      // The loop's last written poll lasts until its last poll ended.
      const uint64_t loop_end = recs[3 + polls - 1].first.t1;
      bool found = false;
      for (const Event& e : d.events) found |= e.t_end == loop_end;
      EXPECT_TRUE(found) << "an event ends where the loop did";
    }
  }
}

// Polls whose bytes repeat in a cycle but mean other requests each time (a loop over handles
// at a constant stride) are not merged: each decodes as written.
TEST(RecordCodec, CyclesOfBytesThatMeanOtherPollsAreNotMerged) {
  MergeBound merge;
  std::vector<std::pair<Rec, bool>> recs;
  for (unsigned i = 0; i < 40; ++i) {
    Rec r;
    r.call = kCall_MPI_Test;
    r.site = i % 2 ? 0x400200 : 0x400100;
    r.polls = {0x7f0000001000ull + 0x40 * i};  // same delta from the last handle every time
    r.t0 = 2 * i;
    r.t1 = 2 * i + 1;
    recs.emplace_back(r, true);
  }
  // Probes from call sites at a constant stride: the same bytes (the site's delta), other sites.
  for (unsigned i = 0; i < 40; ++i) {
    Rec r;
    r.call = kCall_MPI_Iprobe;
    r.site = 0x400000 + 0x100 * i;
    r.comm = 0x5000;
    r.t0 = 100 + 2 * i;
    r.t1 = 101 + 2 * i;
    recs.emplace_back(r, true);
  }
  DecodedThread d = check_polls_round_trip(recs);
  EXPECT_EQ(d.events.size(), recs.size());
  EXPECT_EQ(merged_polls(d), 0u);
}

// MPI_Win_test on windows whose handles are one apart (MPICH's are integers): the same delta
// from the last window is another window each time, and is never merged into the previous
// record, nor into a cycle that would leave the decoder on another window.
TEST(RecordCodec, WinTestsOnWindowsOneApartStayApart) {
  MergeBound merge;
  const uint64_t w[3] = {0xa0000000ull, 0xa0000001ull, 0xa0000002ull};
  std::vector<std::pair<Rec, bool>> recs;
  Rec post;
  post.call = kCall_MPI_Win_post;
  post.obj = w[2];
  post.t0 = 1;
  post.t1 = 2;
  recs.emplace_back(post, false);
  uint64_t t = 3;
  for (int i = 0; i < 30; ++i) {
    Rec r;
    r.call = kCall_MPI_Win_test;
    r.site = 0x400100;
    r.obj = w[i % 3];
    r.t0 = t;
    r.t1 = t + 1;
    t += 2;
    recs.emplace_back(r, true);
  }
  Rec last;
  last.call = kCall_MPI_Win_post;
  last.obj = w[0];
  last.t0 = t + 10;
  last.t1 = t + 11;
  recs.emplace_back(last, false);
  DecodedThread d = check_polls_round_trip(recs);
  EXPECT_EQ(d.events.back().obj, w[0]) << "the window after the loop";
}

// Random loops over a few requests, call sites and communicators, with gaps beyond the bound,
// found probes, completions and other calls between them: whatever is merged, every poll is
// accounted for under what it asked, and every other record decodes as written.
TEST(RecordCodec, RandomPollingLoopsRoundTrip) {
  MergeBound merge;
  std::mt19937 rng(12345);
  uint64_t merged = 0, total = 0;
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE(round);
    const unsigned kinds = 1 + rng() % 6;
    std::vector<std::pair<Rec, bool>> alphabet;
    for (unsigned k = 0; k < kinds; ++k) {
      Rec r;
      const unsigned what = rng() % 4;
      r.site = 0x400000 + 0x100 * (rng() % 3);
      if (what == 0) {
        r.call = kCall_MPI_Iprobe;
        r.comm = 0x5000 + 0x1000 * (rng() % 5);  // five communicators: more than the MRU list holds
        r.peer = static_cast<int>(rng() % 2);
        r.tag = 3;
      } else if (what == 1) {
        r.call = kCall_MPI_Testany;
        r.polls = {0x7f0000001000ull + 0x40 * (rng() % 4), 0x7f0000001000ull + 0x40 * (rng() % 4)};
      } else {
        r.call = kCall_MPI_Test;
        r.polls = {0x7f0000001000ull + 0x40 * (rng() % 4)};
      }
      alphabet.emplace_back(r, true);
    }
    std::vector<std::pair<Rec, bool>> recs;
    uint64_t t = 0;
    unsigned pos = 0;
    for (int i = 0; i < 400; ++i) {
      std::pair<Rec, bool> x;
      const unsigned dice = rng() % 100;
      if (dice < 3) {
        x.first.call = kCall_MPI_Isend;
        x.first.comm = 0x5000 + 0x1000 * (rng() % 5);
        x.first.req = 0x7f0000001000ull + 0x40 * (rng() % 8);
        x.second = false;
      } else if (dice < 5) {
        x = alphabet[rng() % kinds];
        if (x.first.call == kCall_MPI_Iprobe) x.first.flag = 1;
        else x.first.comps = {{x.first.polls[0], 1, 7, false}};
      } else if (dice < 10) {
        x = alphabet[rng() % kinds];  // out of turn
      } else {
        x = alphabet[pos++ % kinds];  // the loop
      }
      const uint64_t gap = rng() % 100 < 4 ? 9 : 1 + rng() % 3;
      x.first.t0 = t + gap;
      x.first.t1 = x.first.t0 + rng() % 4;
      t = x.first.t1;
      recs.push_back(x);
    }
    std::pair<Rec, bool> last;  // a pending run is written with the thread's next record
    last.first.call = kCall_MPI_Send;
    last.first.t0 = last.first.t1 = t + 1;
    recs.push_back(last);
    DecodedThread d = check_polls_round_trip(recs);
    merged += merged_polls(d);
    total += recs.size();
  }
  EXPECT_GT(merged, total / 3) << "loops do merge";
}

// Polls read the thread's CPU clock when the last read is poll_cpu= old: a written poll right
// after it, a merged one after the run's repeat record, each at the poll's end; the decoder
// lists them in time order without touching the events.
TEST(RecordCodec, PollsReadTheThreadsCpuClock) {
  struct Bounds {
    uint64_t merge = g_poll_merge_ticks, cpu = g_poll_cpu_ticks;
    Bounds() {
      g_poll_merge_ticks = 5;
      g_poll_cpu_ticks = 100;
    }
    ~Bounds() {
      g_poll_merge_ticks = merge;
      g_poll_cpu_ticks = cpu;
    }
  } bounds;
  Buffer b;
  std::vector<std::pair<Rec, bool>> recs;
  std::vector<uint64_t> want;  // ticks of the reads
  for (uint64_t t = 1000; t < 1600; t += 2) {  // one loop: 300 polls, merged into a few records
    Rec r;
    r.call = kCall_MPI_Test;
    r.site = 0x400100;
    r.polls = {0x7f0000001000ull};
    r.t0 = t;
    r.t1 = t + 1;
    recs.emplace_back(r, true);
  }
  // The loop's first poll is written and reads (tick 1001); the polls merged after it read
  // every 100 ticks, and the run's last read (1501) is written after its repeat record: a run
  // has no gap inside, so only the read nearest its end matters.
  want = {1001, 1501};
  for (uint64_t t = 2000; t <= 2400; t += 200) {  // polls far apart: each written, each reads
    Rec r;
    r.call = kCall_MPI_Iprobe;
    r.site = 0x400200;
    r.comm = 0x5000;
    r.t0 = t;
    r.t1 = t + 3;
    recs.emplace_back(r, true);
    want.push_back(r.t1);
  }
  Rec send;
  send.call = kCall_MPI_Send;
  send.t0 = 3000;
  send.t1 = 3001;
  recs.emplace_back(send, false);
  for (const auto& [r, poll] : recs) write(&b.ts, r, poll);
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.cpu.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(d.cpu[i].first, want[i]) << i;
    if (i) { EXPECT_GE(d.cpu[i].second, d.cpu[i - 1].second) << i; }
  }
  EXPECT_LT(d.events.size(), 12u) << "the reads do not stop polls from merging";
  EXPECT_EQ(d.events.back().call, kCall_MPI_Send);
  EXPECT_EQ(d.events.back().t_begin, 3000u);
}

// Gap records (collectives counted while recording was off) are not events: they decode into
// DecodedThread::gaps, placed before the next recorded call, and keep the delta bases in step.
TEST(RecordCodec, GapRecordsAreNotEvents) {
  Buffer b;
  Rec a;
  a.call = kCall_MPI_Barrier;
  a.t0 = 100;
  a.t1 = 200;
  a.comm = 0x1000;
  write(&b.ts, a);
  Rec g;
  g.call = kCall_CPATH_Gap;
  g.t0 = g.t1 = 300;
  g.newcomm = 3;  // record 2
  g.aux = 17;
  write(&b.ts, g);
  Rec g2 = g;
  g2.newcomm = 0;  // on a window
  g2.obj = 0x7f0000abc000ull;
  g2.aux = 2;
  write(&b.ts, g2);
  Rec c = a;
  c.t0 = 400;
  c.t1 = 500;
  write(&b.ts, c);
  DecodedThread d = decode_ok(b);
  ASSERT_EQ(d.events.size(), 2u);
  expect_event(a, d.events[0], d, "before the gap");
  expect_event(c, d.events[1], d, "after the gap");
  ASSERT_EQ(d.gaps.size(), 2u);
  EXPECT_EQ(d.gaps[0].before, 1u);
  EXPECT_EQ(d.gaps[0].comm, 2);
  EXPECT_EQ(d.gaps[0].count, 17u);
  EXPECT_EQ(d.gaps[0].t, 300u);
  EXPECT_EQ(d.gaps[1].comm, -1);
  EXPECT_EQ(d.gaps[1].obj, 0x7f0000abc000ull);
  EXPECT_EQ(d.gaps[1].count, 2u);
}

// The bytes of a record header with no flags: varint(call << 3).
static std::vector<uint8_t> header(unsigned call) {
  uint8_t tmp[16];
  uint8_t* e = put_varint(tmp, static_cast<uint64_t>(call) << kHeaderFlagBits);
  return std::vector<uint8_t>(tmp, e);
}

TEST(RecordCodec, CorruptInputRejected) {
  auto decode = [](std::vector<uint8_t> v, std::string* err) {
    DecodedThread d;
    TraceDecoder dec(0);
    const bool ok = dec.decode(v.data(), v.data() + v.size(), &d);
    *err = dec.error();
    return ok;
  };
  std::string err;
  // call id 0
  EXPECT_FALSE(decode({0x00, 0, 0, 0}, &err));
  EXPECT_NE(err.find("call id"), std::string::npos) << err;
  // call id >= kNumCalls
  std::vector<uint8_t> big = header(kNumCalls);
  big.insert(big.end(), {0, 0, 0});
  EXPECT_FALSE(decode(big, &err));
  EXPECT_NE(err.find("call id"), std::string::npos) << err;
  // a Barrier whose communicator code is not 0..4
  std::vector<uint8_t> badcomm = header(kCall_MPI_Barrier);
  badcomm.insert(badcomm.end(), {0, 0, 0, 9});
  EXPECT_FALSE(decode(badcomm, &err));
  EXPECT_NE(err.find("communicator"), std::string::npos) << err;
  // an overlong varint (11 continuation bytes)
  std::vector<uint8_t> overlong(11, 0x80);
  overlong.push_back(0x01);
  EXPECT_FALSE(decode(overlong, &err));
  EXPECT_FALSE(err.empty());
  // a Waitall claiming a billion completions
  std::vector<uint8_t> hugelist = header(kCall_MPI_Waitall);
  hugelist.insert(hugelist.end(), {0, 0, 0});
  {
    uint8_t tmp[16];
    uint8_t* e = put_varint(tmp, 1000000000ull);
    hugelist.insert(hugelist.end(), tmp, e);
  }
  EXPECT_FALSE(decode(hugelist, &err));
  EXPECT_FALSE(err.empty());
  // a Startall claiming more requests than there are bytes
  std::vector<uint8_t> hugereq = header(kCall_MPI_Startall);
  hugereq.insert(hugereq.end(), {0, 0, 0, 0x7f, 1, 1});
  EXPECT_FALSE(decode(hugereq, &err));
  EXPECT_FALSE(err.empty());
}

// Random streams never crash the decoder (it may accept or reject them).
TEST(RecordCodec, RandomBytesDoNotCrash) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> v(static_cast<size_t>(rng() % 64));
    for (auto& x : v) x = static_cast<uint8_t>(rng());
    DecodedThread d;
    TraceDecoder dec(0);
    const bool ok = dec.decode(v.data(), v.data() + v.size(), &d);
    if (!ok) { EXPECT_FALSE(dec.error().empty()); }
  }
}

// Issue 2 targets <= 24 bytes per event overall; a typical MPI_Send in a loop (same call
// site, peer, tag and communicator, ~1 us of compute between calls at TSC rates, an 8 KiB
// payload) must stay under 16 bytes.
TEST(RecordCodec, TypicalSendIsSmall) {
  Buffer b;
  uint64_t t = 123456789012ull;
  const int n = 1000;
  std::mt19937 rng(7);
  for (int i = 0; i < n; ++i) {
    Rec r;
    r.call = kCall_MPI_Send;
    r.t0 = t + 2500 + rng() % 1000;  // ~1 us compute
    r.t1 = r.t0 + 800 + rng() % 400;
    t = r.t1;
    r.site = 0x55555555a123ull;
    r.peer = (i % 2) ? 3 : 5;
    r.tag = 99;
    r.comm = bits_Comm(MPI_COMM_WORLD);
    r.bytes = 8192;
    write(&b.ts, r);
  }
  const double avg = static_cast<double>(b.size()) / n;
  RecordProperty("avg_send_bytes", std::to_string(avg));
  EXPECT_LT(avg, 16.0);
  // and the header of a frequent call is one byte: its call id is below 16
  EXPECT_LT(static_cast<unsigned>(kCall_MPI_Send), 16u);
  EXPECT_LT(b.begin()[0], 0x80);
  DecodedThread d = decode_ok(b);
  EXPECT_EQ(d.events.size(), static_cast<size_t>(n));
}
