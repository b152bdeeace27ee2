// Per-thread trace memory: chunks allocated in large pieces, a per-rank memory cap, and what
// happens at the cap (spill full chunks to node-local disk, or stop recording).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace cpath {

struct Chunk {
  Chunk* next = nullptr;
  uint32_t thread = 0;
  uint32_t seq = 0;
  uint64_t capacity = 0;
  uint64_t used = 0;
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
};

enum class FullPolicy : uint8_t { Spill, Stop };
enum class StoreState : uint8_t { Ok, Spilled, Stopped };

struct ThreadState;

class TraceStore {
 public:
  // Checks the spill directory now, not at the cap: an unusable one falls back to $TMPDIR (or
  // /tmp), or to on_full=stop; `note` receives one line saying so ("" if all is well).
  void configure(uint64_t cap_bytes, uint64_t chunk_bytes, FullPolicy policy, std::string spill_dir, int rank,
                 bool quiet = false, std::string* note = nullptr);
  // Returns a fresh chunk for the thread with room for at least `need` bytes, or nullptr when
  // recording must stop. Called only when a thread's current chunk is full (slow path).
  Chunk* new_chunk(ThreadState* ts, size_t need);
  void register_thread(ThreadState* ts);
  std::vector<ThreadState*> threads();

  StoreState state() const { return state_.load(std::memory_order_relaxed); }
  uint64_t bytes_in_memory() const { return in_memory_.load(std::memory_order_relaxed); }
  uint64_t bytes_spilled() const { return spilled_; }
  const std::string& spill_path() const { return spill_path_; }
  const std::string& spill_dir() const { return spill_dir_; }
  // Why spilling was impossible when the cap was reached ("" if it never failed).
  const std::string& spill_failure() const { return spill_failure_; }
  uint64_t cap() const { return cap_; }
  FullPolicy policy() const { return policy_; }
  // Reads back the spilled chunks of one thread, in order (finalize, single-threaded).
  std::vector<Chunk*> read_spilled(uint32_t thread);
  void release_spill();
  // The decoded trace replaces the chunks (finalize, after decoding and any dump): frees them
  // and leaves every thread without a chunk, so a stray record goes to a fresh one.
  void release_chunks();
  // Frees the thread's first chunk unless it is the one the thread writes into (finalize,
  // once decoded and not to be dumped): the decoded trace then replaces the recorded one chunk
  // by chunk instead of on top of all of it.
  void release_first_chunk(ThreadState* ts);

  // For the crash-time writer (crash_trace.cpp), which may neither block nor allocate: the
  // registered threads and the spilled chunks (in spill order). False when another thread
  // holds the store's lock right now. On success the lock stays held until end_peek(): a
  // thread registering or spilling meanwhile would reallocate the arrays or free the chunks
  // the writer is copying, so it waits instead (the process is ending).
  struct SpilledChunk {
    uint32_t thread, seq;
    uint64_t offset, used;
  };
  bool try_peek(ThreadState* const** threads, size_t* nt, const SpilledChunk** spilled, size_t* nsp);
  void end_peek() { mu_.unlock(); }
  int spill_fd() const { return spill_fd_; }

 private:
  bool spill_thread_chunks(ThreadState* ts);
  std::mutex mu_;
  std::vector<ThreadState*> threads_;
  std::atomic<uint64_t> in_memory_{0};
  std::atomic<StoreState> state_{StoreState::Ok};
  uint64_t spilled_ = 0;
  uint64_t cap_ = 1ull << 30;
  uint64_t chunk_bytes_ = 1ull << 20;
  FullPolicy policy_ = FullPolicy::Spill;
  std::string spill_dir_;
  std::string spill_path_;
  std::string spill_failure_;
  int spill_fd_ = -1;
  int rank_ = 0;
  bool quiet_ = false;
  std::vector<SpilledChunk> spilled_index_;
};

TraceStore& trace_store();
Chunk* allocate_chunk(size_t capacity);
void free_chunk(Chunk* c);

}  // namespace cpath
