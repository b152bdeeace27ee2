#include "thread_state.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/syscall.h>
#include <unistd.h>

#include "call_info.h"
#include "clock.h"
#include "mpi_helpers.h"
#include "pmu/thread_hook.h"

namespace cpath {

__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
// Set in a thread created after follow_thread_births(), before its routine runs; read when the
// thread makes its first MPI call.
__thread uint64_t t_birth_ticks __attribute__((tls_model("initial-exec"))) = 0;
__thread int64_t t_birth_creator __attribute__((tls_model("initial-exec"))) = -2;

void birth_in_creator(uint64_t* ticks_now, int64_t* creator) {
  *ticks_now = ticks();
  *creator = t_state ? static_cast<int64_t>(t_state->index) : -1;
}

void birth_in_child(uint64_t ticks_then, int64_t creator) {
  t_birth_ticks = ticks_then;
  t_birth_creator = creator;
}
}  // namespace

void follow_thread_births() { pmu::set_thread_birth_hooks(&birth_in_creator, &birth_in_child); }
std::atomic<bool> g_active{false};
std::atomic<bool> g_recording{false};

void Scratch::grow_slow(void*& p, size_t& cap, size_t want, size_t elem) {
  size_t n = cap ? cap : 64;
  while (n < want) n *= 2;
  void* q = std::realloc(p, n * elem);
  if (!q) std::abort();  // out of memory while the application itself is in MPI
  p = q;
  cap = n;
}

MPI_Fint* Scratch::fstatuses(int n) {
  const size_t want = static_cast<size_t>(n > 0 ? n : 1) * kFStatusSize;
  if (want > fstatuses_cap_) grow_slow(reinterpret_cast<void*&>(fstatuses_), fstatuses_cap_, want, sizeof(MPI_Fint));
  return fstatuses_;
}

Scratch::~Scratch() {
  std::free(handles_);
  std::free(statuses_);
  std::free(fstatuses_);
  std::free(poll_);
  std::free(ints_);
}

void ThreadState::seal() {
  if (current) current->used = static_cast<uint64_t>(pos - current->data());
}

void ThreadState::grow(size_t need) {
  const bool discarding = current == nullptr || pos < current->data() || pos > current->data() + current->capacity;
  if (!discarding) seal();
  Chunk* c = trace_store().new_chunk(this, need);
  if (c) {
    if (current) current->next = c;
    else head = c;
    current = c;
    pos = c->data();
    end = pos + c->capacity;
    return;
  }
  // Recording stops (memory cap with on_full=stop, or no memory): later records go nowhere.
  g_recording.store(false, std::memory_order_relaxed);
  if (!saved && !discarding) {
    poll_header = 0;
    saved = new (std::nothrow) DeltaBases();
    if (saved) {
      // Polls merged into the last record and not yet written are lost: the decoder saw
      // that record's own end, and the bases its cycle's last record left (the merged copies
      // of the cycle's first records moved them).
      if (poll_repeats && poll_period > 1 && poll_repeats % poll_period) {
        for (unsigned j = poll_repeats % poll_period; j < poll_period; ++j) {
          const PollSlot& s = poll_slots[(poll_newest + kPollRing - poll_period + 1 + j) % kPollRing];
          last_callsite[s.header >> kHeaderFlagBits] = s.site;
        }
        const PollSlot& last = poll_slots[poll_newest];
        last_handle = last.handle;
        last_obj = last.obj;
        std::memcpy(comm_mru, last.mru, sizeof comm_mru);
      }
      saved->last_tick = poll_repeats ? poll_end : last_tick;
      saved->last_handle = last_handle;
      saved->last_obj = last_obj;
      std::memcpy(saved->comm_mru, comm_mru, sizeof comm_mru);
      std::memcpy(saved->last_callsite, last_callsite, sizeof last_callsite);
    }
  }
  if (discard_cap < need) {
    std::free(discard);
    discard = static_cast<uint8_t*>(std::malloc(need));
    discard_cap = discard ? need : 0;
    if (!discard) std::abort();
  }
  pos = discard;
  end = discard + discard_cap;
}

void ThreadState::force_room(size_t need) {
  const bool discarding = current == nullptr || pos < current->data() || pos > current->data() + current->capacity;
  if (!discarding) seal();
  if (saved) {
    // Back to what the decoder last saw (the discarded record moved the bases).
    last_tick = saved->last_tick;
    last_handle = saved->last_handle;
    last_obj = saved->last_obj;
    std::memcpy(comm_mru, saved->comm_mru, sizeof comm_mru);
    std::memcpy(last_callsite, saved->last_callsite, sizeof last_callsite);
    delete saved;
    saved = nullptr;
    poll_header = 0;  // what was merged in the discard sink is gone with it
    poll_repeats = 0;
    poll_period = 0;
    cpu_pending = false;
  }
  Chunk* c = allocate_chunk(need + 64);
  if (!c) return;
  c->thread = index;
  c->seq = next_seq++;
  if (current) current->next = c;
  else head = c;
  current = c;
  pos = c->data();
  end = pos + c->capacity;
}

uint64_t g_poll_merge_ticks = 0;
uint64_t g_poll_cpu_ticks = 0;

ThreadState* thread_state_create() {
  if (!g_active.load(std::memory_order_relaxed)) return nullptr;
  ThreadState* ts = new (std::nothrow) ThreadState();
  if (!ts) return nullptr;
  // Once per thread: lets the hotspots tell the thread in an MPI call from the others.
  ts->os_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  ts->birth_ticks = t_birth_ticks;
  ts->birth_creator = t_birth_creator;
  trace_store().register_thread(ts);
  ts->grow(0);
  t_state = ts;
  return ts;
}

}  // namespace cpath
