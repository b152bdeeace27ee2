// Per-thread recording state: the current chunk, the delta-coding bases of the record
// format, and scratch space for wrappers that need temporary arrays. Reached through one
// initial-exec TLS pointer, so entering a wrapper costs a TLS load and two branches.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "call_table.h"
#include "region_record.h"
#include "trace_store.h"

namespace cpath {

// Temporary arrays for Waitall & co. Grown on demand (rarely), never shrunk.
class Scratch {
 public:
  uint64_t* handles(int n) { return grow(handles_, handles_cap_, n); }
  MPI_Status* statuses(int n) { return grow(statuses_, statuses_cap_, n); }
  MPI_Fint* fstatuses(int n);
  int* ints(int n) { return grow(ints_, ints_cap_, n); }
  // The requests this thread polled last (Test family): a polling loop that keeps testing the
  // same list writes one byte per call instead of the list (docs/trace-format.md, polls).
  bool same_poll(int n, const uint64_t* hs) const {
    if (n != poll_n_) return false;
    for (int i = 0; i < n; ++i)
      if (poll_[i] != hs[i]) return false;
    return true;
  }
  int poll_n() const { return poll_n_; }
  const uint64_t* poll_list() const { return poll_; }
  void remember_poll(int n, const uint64_t* hs) {
    uint64_t* p = grow(poll_, poll_cap_, n);
    for (int i = 0; i < n; ++i) p[i] = hs[i];
    poll_n_ = n;
  }
  ~Scratch();

 private:
  template <class T>
  T* grow(T*& p, size_t& cap, int n) {
    const size_t want = n > 0 ? static_cast<size_t>(n) : 1;
    if (want > cap) grow_slow(reinterpret_cast<void*&>(p), cap, want, sizeof(T));
    return p;
  }
  static void grow_slow(void*& p, size_t& cap, size_t want, size_t elem);
  uint64_t* handles_ = nullptr;
  size_t handles_cap_ = 0;
  MPI_Status* statuses_ = nullptr;
  size_t statuses_cap_ = 0;
  MPI_Fint* fstatuses_ = nullptr;
  size_t fstatuses_cap_ = 0;
  uint64_t* poll_ = nullptr;
  size_t poll_cap_ = 0;
  int* ints_ = nullptr;
  size_t ints_cap_ = 0;
  int poll_n_ = -1;  // -1: nothing polled yet
};

// The delta-coding bases of the record format, saved when recording stops at the memory cap:
// the record being written then goes nowhere, but it has already moved the bases, and the
// records written after the stop (gap records, MPI_Finalize) must be coded against what the
// decoder saw last.
constexpr int kCommMru = 4;

struct DeltaBases {
  uint64_t last_tick = 0;
  uint64_t last_handle = 0;
  uint64_t last_obj = 0;
  uint64_t comm_mru[kCommMru] = {};
  uint64_t last_callsite[kNumCalls] = {};
};

// Collectives this thread made while recording was off (unrecorded.h), counted without a lock:
// each slot caches the communicator's record, resolved once and trusted while the registry's
// generation (bumped by every registration) is unchanged. Only the owner claims slots and adds
// counts; the flush (another thread, at MPI_Pcontrol(1) or MPI_Finalize) takes the counts with
// an atomic exchange, and sees a slot's key once `used` has published it.
struct UnrecordedSlot {
  uint64_t comm = 0;  // communicator handle bits (0: a window/file collective)
  uint64_t obj = 0;   // window/file handle bits
  int32_t rec = -1;   // communicator record, or -1 (never seen created)
  uint32_t gen = 0;   // registry generation `rec` was resolved in
  std::atomic<uint64_t> n{0};
};
constexpr int kUnrecordedSlots = 16;
struct UnrecordedTable {
  UnrecordedSlot slot[kUnrecordedSlots];
  std::atomic<int> used{0};  // slots whose key is set; never decreases (full: the locked map)
};

// Merged polls (record_writer.h, finish_poll). A loop that polls one thing repeats one record;
// a loop that polls several in turn (MPI_Test(a); MPI_Test(b)) repeats a cycle of up to
// kPollCycle records. The longest record after its times a merged poll may have: a loop's
// calls code their lists against the thread's last one, so they are a few bytes.
constexpr unsigned kPollBytesMax = 32;  // kPollCycle: region_record.h
// A cycle merges once it was written twice in a row, so the writer keeps twice its length.
constexpr unsigned kPollRing = 2 * kPollCycle;
constexpr int kPollListMax = 4;  // polled lists longer than this merge only into the previous record
// Polls that began at most this many ticks after the previous one ended are merged (0: never).
// Set once at MPI_Init from option poll_merge (ns).
extern uint64_t g_poll_merge_ticks;
// A poll ending at least this many ticks after the thread's last CPU-time read reads it again
// (0: never). Set once at MPI_Init from option poll_cpu (ns).
extern uint64_t g_poll_cpu_ticks;

// One unsuccessful poll as written, and the delta bases it left: a later poll is the same call
// only if its bytes are equal and it leaves the same bases (equal bytes coded against other
// bases mean other values: the next handle of a list, another call site).
struct PollSlot {
  uint32_t header = 0;
  uint8_t len = 0;       // bytes after the times: the call site's delta, then the body
  uint8_t body_off = 0;  // where the body starts among them
  int16_t list_n = -1;   // the thread's last polled list after it (-1: none yet; -2: too long to keep)
  uint8_t bytes[kPollBytesMax] = {};
  uint64_t site = 0, handle = 0, obj = 0;
  uint64_t mru[kCommMru] = {};
  uint64_t list[kPollListMax] = {};
};

struct ThreadState {
  // Hot: touched by every record.
  uint8_t* pos = nullptr;
  uint8_t* end = nullptr;
  bool busy = false;
  uint64_t last_tick = 0;
  uint64_t last_handle = 0;
  uint64_t last_obj = 0;
  uint64_t comm_mru[kCommMru] = {0, 0, 0, 0};
  uint64_t events = 0;
  MPI_Datatype last_type = MPI_DATATYPE_NULL;  // one-entry size cache, predefined types only
  uint64_t last_type_size = 0;
  uint64_t last_callsite[kNumCalls] = {};
  // A run of unsuccessful polls (record_writer.h, finish_poll): the header of the thread's
  // last record when it was one (0: it was not), and the polls since merged that its repeat
  // record, not yet written, will add.
  uint32_t poll_header = 0;
  uint32_t poll_repeats = 0;
  // Cold.
  uint64_t poll_end = 0;    // the last record's end as written (ticks)
  uint8_t poll_period = 0;  // the run's cycle: 1 one record, p the last p records (0: no run)
  uint8_t poll_chain = 0;   // consecutive unsuccessful polls written, up to the newest (at most kPollRing)
  uint8_t poll_newest = 0;  // poll_slots index of the newest
  PollSlot poll_slots[kPollRing];
  // The thread's CPU clock at polls (record_writer.h, kCpuRecord): the last read, when (ticks),
  // the value last written, and whether the last read waits for a merged run's end.
  uint64_t cpu_ns = 0, cpu_tick = 0, cpu_written = 0;
  bool cpu_pending = false;
  Chunk* head = nullptr;
  Chunk* current = nullptr;
  uint32_t index = 0;
  uint32_t os_tid = 0;  // the kernel's id of the thread, as the sampler's samples carry it
  // Where the thread was created, when pthread_create ran after MPI_Init (docs/pag-rules.md
  // rule 1): the creator's ticks then, and the creator's index (-1: it had made no MPI call);
  // birth_creator -2: unknown (created before, or not through pthread_create).
  uint64_t birth_ticks = 0;
  int64_t birth_creator = -2;
  uint32_t next_seq = 0;
  uint8_t* discard = nullptr;  // sink for records after recording stopped
  size_t discard_cap = 0;
  DeltaBases* saved = nullptr;  // bases at the stop (see DeltaBases)
  Scratch scratch;
  UnrecordedTable unrecorded;

  // Makes room for a record of up to `need` bytes (slow path).
  void grow(size_t need);
  // Closes the current chunk (records its used size).
  void seal();
  // Room for one more record even after recording stopped (the MPI_Finalize record).
  void force_room(size_t need);
};

extern __thread ThreadState* t_state __attribute__((tls_model("initial-exec")));

// Follows thread births from now on (pthread_create's interposer calls back): a thread created
// later records when and by whom.
void follow_thread_births();
extern std::atomic<bool> g_active;     // between our MPI_Init and MPI_Finalize hooks
extern std::atomic<bool> g_recording;  // active, not paused by MPI_Pcontrol, not stopped at the cap

ThreadState* thread_state_create();

// Entering a wrapper that records: nullptr means "just call PMPI" (not recording, or nested
// inside another wrapper, e.g. MPICH's Fortran binding calling the C entry point).
inline ThreadState* enter_recording() {
  if (!g_recording.load(std::memory_order_relaxed)) return nullptr;
  ThreadState* ts = t_state;
  if (__builtin_expect(ts == nullptr, 0)) ts = thread_state_create();
  if (!ts || ts->busy) return nullptr;
  ts->busy = true;
  return ts;
}

// Entering a wrapper that must keep its bookkeeping even while recording is paused
// (communicator creation, MPI_Pcontrol).
inline ThreadState* enter_tracking() {
  if (!g_active.load(std::memory_order_relaxed)) return nullptr;
  ThreadState* ts = t_state;
  if (__builtin_expect(ts == nullptr, 0)) ts = thread_state_create();
  if (!ts || ts->busy) return nullptr;
  ts->busy = true;
  return ts;
}

inline void leave(ThreadState* ts) { ts->busy = false; }

inline bool recording_now() { return g_recording.load(std::memory_order_relaxed); }

}  // namespace cpath
