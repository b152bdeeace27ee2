// Writes one trace record on the per-call path. Layout (docs/trace-format.md):
//   varint  call_id << 3 | flags
//   varint  zigzag(begin - previous record's end)          ticks
//   varint  end - begin                                      ticks
//   varint  zigzag(call site - previous call site of the same call id)
//   fields  in kField_* order, as listed for the call id in the call table
// Every value is delta- or MRU-coded against per-thread state the decoder replays, which is
// what keeps a typical record near 10 bytes. No allocation, lock, lookup or formatting here.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <algorithm>

#include "call_info.h"
#include "region_record.h"
#include "thread_state.h"
#include "varint.h"

namespace cpath {

constexpr size_t kMaxFixedRecord = 160;
// Room for a repeat record (call id 0, kind kRepeatRecord or kRepeatCycleRecord: header,
// cycle length, count, end delta) and the CPU record after it (header, tick, CPU time); a
// written poll may be followed by a CPU record of its own (kCpuRoom more).
constexpr size_t kCpuRoom = 1 + 2 * kMaxVarintBytes;
constexpr size_t kRepeatRoom = 2 + 2 * kMaxVarintBytes + kCpuRoom;
// A run ends before its count would overflow (the record's calls are a 32-bit count).
constexpr uint32_t kMaxPollRepeats = 0xffffff00u;

// The thread's CPU time at `tick` (a poll's end): one clock_gettime, about 2 us where it is a
// system call, at most once per g_poll_cpu_ticks of polling.
__attribute__((noinline)) inline void read_thread_cpu(ThreadState* ts, uint64_t tick) {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  ts->cpu_ns = static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
  ts->cpu_tick = tick;
  ts->cpu_pending = true;
}

// The last CPU read as a record at `q`; `base` is the decoder's last tick there.
inline uint8_t* put_cpu(ThreadState* ts, uint8_t* q, uint64_t base) {
  *q++ = static_cast<uint8_t>(kCpuRecord);
  q = put_varint(q, zigzag(static_cast<int64_t>(ts->cpu_tick - base)));
  q = put_varint(q, ts->cpu_ns >= ts->cpu_written ? ts->cpu_ns - ts->cpu_written : 0);
  ts->cpu_written = std::max(ts->cpu_ns, ts->cpu_written);
  ts->cpu_pending = false;
  return q;
}

// A run of unsuccessful polls ended: write its repeat record at `q` (the stream's tail, before
// the next record), which extends the run's last written record to the last poll's end,
// `run_end`. Returns the position after it.
inline uint8_t* put_repeat(ThreadState* ts, uint8_t* q, uint64_t run_end) {
  if (ts->poll_period > 1) {
    *q++ = static_cast<uint8_t>(kRepeatCycleRecord);  // call id 0 << 3 | kind
    *q++ = ts->poll_period;
  } else {
    *q++ = static_cast<uint8_t>(kRepeatRecord);
  }
  q = put_varint(q, ts->poll_repeats);
  q = put_varint(q, run_end - ts->poll_end);
  ts->poll_repeats = 0;
  ts->poll_period = 0;
  if (ts->cpu_pending) q = put_cpu(ts, q, run_end);  // read at a merged poll's end
  return q;
}

// The unsuccessful poll just written (bytes [site, end) after its times) becomes the newest of
// the thread's last polls, with the bases it left. Out of line: it runs for written polls only,
// and a loop's polls merge.
__attribute__((noinline)) inline void remember_poll(ThreadState* ts, uint32_t header, const uint8_t* site,
                                                    const uint8_t* body, const uint8_t* end) {
  if (ts->poll_header == 0) ts->poll_chain = 1;
  else if (ts->poll_chain < kPollRing) ++ts->poll_chain;
  ts->poll_newest = static_cast<uint8_t>((ts->poll_newest + 1) % kPollRing);
  PollSlot& s = ts->poll_slots[ts->poll_newest];
  s.header = header;
  s.len = static_cast<uint8_t>(end - site);
  s.body_off = static_cast<uint8_t>(body - site);
  std::memcpy(s.bytes, site, s.len);
  s.site = ts->last_callsite[header >> kHeaderFlagBits];
  s.handle = ts->last_handle;
  s.obj = ts->last_obj;
  std::memcpy(s.mru, ts->comm_mru, sizeof s.mru);
  const int n = ts->scratch.poll_n();
  s.list_n = static_cast<int16_t>(n > kPollListMax ? -2 : n);
  for (int i = 0; i < n && i < kPollListMax; ++i) s.list[i] = ts->scratch.poll_list()[i];
  ts->poll_header = header;
  ts->poll_end = ts->last_tick;
}

// Whether poll `s` left these bases: its call's site, the last handle and window, the
// communicators' order, the polled list (n: -1 none yet; longer than kPollListMax never matches
// a live list, whose n is then above it).
inline bool left_bases(const PollSlot& s, uint64_t site, uint64_t handle, uint64_t obj, const uint64_t* mru, int n,
                       const uint64_t* list) {
  return s.site == site && s.handle == handle && s.obj == obj && std::memcmp(s.mru, mru, sizeof s.mru) == 0 &&
         s.list_n == n && (n <= 0 || std::memcmp(s.list, list, sizeof(uint64_t) * static_cast<size_t>(n)) == 0);
}

// Whether poll `s` has these bytes after its times.
inline bool same_bytes(const PollSlot& s, uint32_t header, const uint8_t* bytes, size_t len) {
  return s.header == header && s.len == len && std::memcmp(s.bytes, bytes, len) == 0;
}

inline bool same_poll(const PollSlot& x, const PollSlot& y) {
  return same_bytes(x, y.header, y.bytes, y.len) && left_bases(x, y.site, y.handle, y.obj, y.mru, y.list_n, y.list);
}

// Whether the poll just written (bytes [site, end) after its times, not yet committed) is the
// next of a cycle of the thread's last polls: the run's (poll_period) or, when none runs yet,
// the shortest cycle of 2 .. kPollCycle polls written twice in a row just before it (once is
// not enough: a call site's first record is coded unlike its next ones, and a cycle that
// matched one poll would break at the next). Equal bytes and equal bases left after it: the
// same call, site, requests, communicator order; folded, it leaves the writer's bases where the
// decoder, replaying the cycle's records (trace_decoder.cpp), will put them.
__attribute__((noinline)) inline bool fold_into_cycle(ThreadState* ts, uint32_t header, const uint8_t* site,
                                                      const uint8_t* end) {
  const size_t len = static_cast<size_t>(end - site);
  const unsigned n = ts->poll_repeats;
  const unsigned lo = n ? ts->poll_period : 2, hi = n ? ts->poll_period : ts->poll_chain / 2;
  auto slot = [ts](unsigned back) -> const PollSlot& {  // back 0: the newest
    return ts->poll_slots[(ts->poll_newest + kPollRing - back) % kPollRing];
  };
  for (unsigned p = lo; p <= hi; ++p) {
    // The cycle is the last p polls written; after n merged, the next is its (n mod p)-th.
    const PollSlot& s = slot(p - 1 - n % p);
    if (!same_bytes(s, header, site, len) ||
        !left_bases(s, ts->last_callsite[header >> kHeaderFlagBits], ts->last_handle, ts->last_obj, ts->comm_mru,
                    ts->scratch.poll_n(), ts->scratch.poll_list()))
      continue;
    if (n == 0) {
      bool twice = true;
      for (unsigned j = 0; j < p && twice; ++j) twice = same_poll(slot(j), slot(j + p));
      if (!twice) continue;
    }
    ++ts->poll_repeats;
    ts->poll_period = static_cast<uint8_t>(p);
    return true;
  }
  return false;
}

// The run before the record [start, end) ended: its repeat record goes first, and the record
// moves after it unchanged (its begin was coded against `run_end`, the run's last end). Returns
// how far it moved. A free function, out of line: a member taking the writer's address would
// keep every field of every wrapper's writer in memory instead of registers.
__attribute__((noinline)) inline size_t insert_repeat(ThreadState* ts, uint8_t* start, uint8_t* end, uint64_t run_end) {
  uint8_t tmp[kRepeatRoom];
  const size_t k = static_cast<size_t>(put_repeat(ts, tmp, run_end) - tmp);
  std::memmove(start + k, start, static_cast<size_t>(end - start));
  std::memcpy(start, tmp, k);
  return k;
}

// Before a record written outside RecordWriter (region markers): the pending repeat first.
// The caller has made room for kRepeatRoom more bytes.
inline void end_poll_run(ThreadState* ts) {
  if (__builtin_expect(ts->poll_repeats != 0, 0)) ts->pos = put_repeat(ts, ts->pos, ts->last_tick);
  ts->poll_header = 0;
}

// The writer's pieces are a handful of instructions each: keep them in the wrapper.
#define CPATH_INLINE inline __attribute__((always_inline))

inline int32_t canonical_rank(int r) {
  if (r >= 0) return r;
  if (r == MPI_ANY_SOURCE) return kRankAnySource;
  if (r == MPI_PROC_NULL) return kRankProcNull;
  if (r == MPI_ROOT) return kRankRoot;
  return kRankOther;
}

inline int32_t canonical_tag(int t) { return t == MPI_ANY_TAG ? kTagAny : t; }

template <class H>
inline uint64_t raw_handle_bits(H h) {
  if constexpr (sizeof(H) == 8)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
  else
    return static_cast<uint64_t>(static_cast<uint32_t>(h));
}

// MPI_Request/MPI_Message/MPI_Comm may all be the same integer type (MPICH), so these are
// named per handle kind rather than overloaded.
inline uint64_t bits_Request(MPI_Request r) { return r == MPI_REQUEST_NULL ? 0 : raw_handle_bits(r); }
inline uint64_t bits_Message(MPI_Message m) {
  return (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) ? 0 : raw_handle_bits(m);
}
inline uint64_t bits_Comm(MPI_Comm c) { return raw_handle_bits(c); }
inline uint64_t bits_Win(MPI_Win w) { return w == MPI_WIN_NULL ? 0 : raw_handle_bits(w); }
inline uint64_t bits_File(MPI_File f) { return f == MPI_FILE_NULL ? 0 : raw_handle_bits(f); }

class RecordWriter {
 public:
  CPATH_INLINE RecordWriter(ThreadState* ts, unsigned call, uint64_t t0, uint64_t t1, const void* caller, unsigned flags,
               size_t extra)
      : ts_(ts) {
    if (__builtin_expect(static_cast<size_t>(ts->end - ts->pos) < kMaxFixedRecord + kRepeatRoom + kCpuRoom + extra, 0))
      ts->grow(kMaxFixedRecord + kRepeatRoom + kCpuRoom + extra);
    start_ = p_ = ts->pos;
    header_ = static_cast<uint32_t>((call << kHeaderFlagBits) | flags);
    p_ = put_varint(p_, header_);
    prev_tick_ = ts->last_tick;
    t0_ = t0;
    p_ = put_varint(p_, zigzag(static_cast<int64_t>(t0 - prev_tick_)));
    p_ = put_varint(p_, t1 - t0);
    ts->last_tick = t1;
    const uint64_t cs = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(caller));
    site_same_ = cs == ts->last_callsite[call];
    handle0_ = ts->last_handle;
    site_ = p_;
    p_ = put_varint(p_, zigzag(static_cast<int64_t>(cs - ts->last_callsite[call])));
    ts->last_callsite[call] = cs;
    body_ = p_;
  }

  CPATH_INLINE void peer(int r) { p_ = put_varint(p_, zigzag(canonical_rank(r))); }
  void peer2(int r) { peer(r); }
  void root(int r) { peer(r); }
  CPATH_INLINE void tag(int t) { p_ = put_varint(p_, zigzag(canonical_tag(t))); }
  void tag2(int t) { tag(t); }
  CPATH_INLINE void bytes(uint64_t b) { p_ = put_varint(p_, b); }
  void flag(int f) {
    p_ = put_varint(p_, f ? 1 : 0);
    found_ = f != 0;
  }
  void newcomm(int index_plus_one) { p_ = put_varint(p_, static_cast<uint64_t>(index_plus_one)); }
  void aux(int64_t v) { p_ = put_varint(p_, zigzag(v)); }
  // Windows and files: delta against the last one this thread wrote.
  void obj(uint64_t h) {
    p_ = put_varint(p_, zigzag(static_cast<int64_t>(h - ts_->last_obj)));
    moved_ |= h != ts_->last_obj;  // the same delta from another window is another window
    ts_->last_obj = h;
  }

  // Communicator: index into a 4-entry move-to-front list, or 4 followed by the handle.
  CPATH_INLINE void comm(MPI_Comm c) {
    const uint64_t h = bits_Comm(c);
    uint64_t* m = ts_->comm_mru;
    int i = 0;
    while (i < kCommMru && m[i] != h) ++i;
    if (i < kCommMru) {
      *p_++ = static_cast<uint8_t>(i);
    } else {
      *p_++ = static_cast<uint8_t>(kCommMru);
      p_ = put_varint(p_, h);
      i = kCommMru - 1;
    }
    moved_ |= i != 0;
    for (; i > 0; --i) m[i] = m[i - 1];
    m[0] = h;
  }

  // Request and message handles: delta against the last handle written by this thread.
  CPATH_INLINE void req(uint64_t h) {
    p_ = put_varint(p_, zigzag(static_cast<int64_t>(h - ts_->last_handle)));
    if (h) ts_->last_handle = h;
  }
  void req2(uint64_t h) { req(h); }
  void reqlist(int n, const uint64_t* hs) {
    p_ = put_varint(p_, n > 0 ? static_cast<uint64_t>(n) : 0);
    for (int i = 0; i < n; ++i) req(hs[i]);
  }

  // Requests a Test-family call polled: 0 when the list is the thread's previous one (a polling
  // loop), else count + 1 and the handles.
  void polls(int n, const uint64_t* hs) {
    if (n < 0) n = 0;
    if (ts_->scratch.same_poll(n, hs)) {
      *p_++ = 0;
      return;
    }
    p_ = put_varint(p_, static_cast<uint64_t>(n) + 1);
    for (int i = 0; i < n; ++i) req(hs[i]);
    ts_->scratch.remember_poll(n, hs);
    moved_ = true;
  }
  void polls1(uint64_t h) { polls(h ? 1 : 0, &h); }

  void completions(int n) {
    p_ = put_varint(p_, static_cast<uint64_t>(n));
    found_ = n != 0;
  }
  // Succeeded without completing a request (MPI_Parrived found its partition).
  void found() { found_ = true; }
  // One completed request: handle, actual source (shifted, low bit = cancelled), actual tag.
  void completion(uint64_t h, const MPI_Status* st) {
    req(h);
    int cancelled = 0;
    if (cancel_seen_.load(std::memory_order_relaxed)) PMPI_Test_cancelled(st, &cancelled);
    p_ = put_varint(p_, (zigzag(canonical_rank(st->MPI_SOURCE)) << 1) | (cancelled ? 1u : 0u));
    p_ = put_varint(p_, zigzag(canonical_tag(st->MPI_TAG)));
  }

  CPATH_INLINE void finish() {
    if (__builtin_expect(ts_->poll_repeats != 0, 0)) p_ += insert_repeat(ts_, start_, p_, prev_tick_);
    ts_->poll_header = 0;
    ts_->pos = p_;
    ++ts_->events;
  }

  // A Test-family call, Iprobe/Improbe, MPI_Win_test, MPI_Parrived. Unsuccessful (nothing
  // completed or found) and begun at most g_poll_merge_ticks after the thread's last record
  // ended, it may not be written: a loop that polls one thing is its first poll, a second one
  // whose fields are all "the previous one", and a repeat record that extends the second to the
  // loop's last poll; a loop that polls p things in turn (p <= kPollCycle) is its first polls
  // until one cycle repeats, then a repeat record that extends the cycle's last record
  // (docs/trace-format.md). A busy-polling loop (MPICH's cheap MPI_Test: SNAP made 2.4 M
  // records per rank in 3 s; two requests tested in turn, 7.9 M in 8 s) is then a few
  // records, and the analysis sees the loop's last written poll lasting to the loop's end:
  // the gaps of up to the bound between the polls count as that poll's time, not as
  // computation.
  void finish_poll() {
    if (!found_ && ts_->poll_header != 0 && t0_ >= prev_tick_ && t0_ - prev_tick_ <= g_poll_merge_ticks &&
        ts_->poll_repeats < kMaxPollRepeats) {
      if (ts_->poll_period <= 1) {
        // Equal bytes are not enough where a value is coded against the thread's last one (the
        // request list, handles, the call site): the record must also have left those bases as
        // they were, or the decoder, which never sees it, would fall out of step.
        const PollSlot& s = ts_->poll_slots[ts_->poll_newest];
        const size_t len = static_cast<size_t>(p_ - body_);
        if (ts_->poll_header == header_ && site_same_ && !moved_ && ts_->last_handle == handle0_ &&
            len == static_cast<size_t>(s.len - s.body_off) && std::memcmp(body_, s.bytes + s.body_off, len) == 0) {
          ++ts_->poll_repeats;
          ts_->poll_period = 1;
          cpu_at_poll_end();
          return;
        }
      }
      if (ts_->poll_period != 1 && ts_->poll_chain >= 2 && fold_into_cycle(ts_, header_, site_, p_)) {
        cpu_at_poll_end();
        return;
      }
    }
    if (__builtin_expect(ts_->poll_repeats != 0, 0)) {
      const size_t k = insert_repeat(ts_, start_, p_, prev_tick_);
      p_ += k;
      body_ += k;
      site_ += k;
    }
    if (!found_ && p_ - site_ <= static_cast<ptrdiff_t>(kPollBytesMax) && g_poll_merge_ticks)
      remember_poll(ts_, header_, site_, body_, p_);
    else
      ts_->poll_header = 0;
    cpu_at_poll_end();
    if (ts_->cpu_pending) p_ = put_cpu(ts_, p_, ts_->last_tick);
    ts_->pos = p_;
    ++ts_->events;
  }

  // A poll ended (ts_->last_tick): the thread's CPU clock is read when the last read is
  // g_poll_cpu_ticks old, so that every long gap in a polling loop has a read within that
  // bound before it and one just after it.
  void cpu_at_poll_end() {
    if (g_poll_cpu_ticks && ts_->last_tick - ts_->cpu_tick >= g_poll_cpu_ticks) read_thread_cpu(ts_, ts_->last_tick);
  }

  // Set once the application has called MPI_Cancel: only then are statuses asked whether
  // they were cancelled.
  static inline std::atomic<bool> cancel_seen_{false};

 private:
  ThreadState* ts_;
  uint8_t* p_;
  uint8_t* start_;
  uint8_t* site_;  // after the times: the call site's delta
  uint8_t* body_;
  uint64_t prev_tick_, t0_;  // the thread's last tick before this record, this record's begin
  uint64_t handle0_;  // the thread's last handle before this record
  uint32_t header_;
  bool found_ = true;
  bool site_same_ = false;     // the call site is the previous one of this call
  bool moved_ = false;  // a base other than the handle moved: the request list, the communicators' order
};

}  // namespace cpath
