#include "trace_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "thread_state.h"

namespace cpath {

TraceStore& trace_store() {
  static TraceStore s;
  return s;
}

Chunk* allocate_chunk(size_t capacity) {
  void* mem = std::malloc(sizeof(Chunk) + capacity);
  if (!mem) return nullptr;
  Chunk* c = new (mem) Chunk();
  c->capacity = capacity;
  return c;
}

void free_chunk(Chunk* c) { std::free(c); }

// One line on stderr (the runtime's note(), which this low layer cannot link to).
static void say(const std::string& line) {
  const std::string s = "libcpath: " + line + "\n";
  (void)!::write(2, s.data(), s.size());
}

static std::string default_spill_dir() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

// "" when `dir` is a directory we may create files in, else the reason.
static std::string unusable(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return "";
}

void TraceStore::configure(uint64_t cap_bytes, uint64_t chunk_bytes, FullPolicy policy, std::string spill_dir,
                           int rank, bool quiet, std::string* note) {
  quiet_ = quiet;
  cap_ = cap_bytes;
  chunk_bytes_ = chunk_bytes;
  policy_ = policy;
  spill_dir_ = spill_dir.empty() ? default_spill_dir() : std::move(spill_dir);
  rank_ = rank;
  if (policy_ != FullPolicy::Spill) return;
  const std::string why = unusable(spill_dir_);
  if (why.empty()) return;
  const std::string fallback = default_spill_dir();
  std::string line = "spill_dir=" + spill_dir_ + " is unusable (" + why + ")";
  if (fallback != spill_dir_ && unusable(fallback).empty()) {
    line += ": spilling to " + fallback + " instead";
    spill_dir_ = fallback;
  } else {
    line += ": recording will stop at the memory cap (on_full=stop)";
    policy_ = FullPolicy::Stop;
    spill_failure_ = "spill_dir=" + spill_dir_ + " unusable (" + why + ")";
  }
  if (note) *note = line;
}

void TraceStore::register_thread(ThreadState* ts) {
  std::lock_guard<std::mutex> g(mu_);
  ts->index = static_cast<uint32_t>(threads_.size());
  threads_.push_back(ts);
}

std::vector<ThreadState*> TraceStore::threads() {
  std::lock_guard<std::mutex> g(mu_);
  return threads_;
}

static bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool TraceStore::spill_thread_chunks(ThreadState* ts) {
  if (spill_fd_ < 0) {
    const std::string& dir = spill_dir_;
    char name[64];
    std::snprintf(name, sizeof name, "/libcpath-spill-%d-%d.XXXXXX", static_cast<int>(getpid()), rank_);
    std::string path = dir + name;
    std::vector<char> buf(path.begin(), path.end());
    buf.push_back('\0');
    spill_fd_ = mkstemp(buf.data());
    if (spill_fd_ < 0) {
      spill_failure_ = "cannot create a spill file in " + dir + " (" + std::strerror(errno) + ")";
      return false;
    }
    spill_path_ = buf.data();
    // Unlinked at once: the file lives as long as the descriptor, so nothing is left behind
    // on node-local disk even if the job is killed.
    ::unlink(spill_path_.c_str());
  }
  // Every chunk of the thread is sealed when this runs (its current chunk just filled up).
  Chunk* c = ts->head;
  while (c) {
    const uint64_t off = static_cast<uint64_t>(lseek(spill_fd_, 0, SEEK_END));
    if (!write_all(spill_fd_, c->data(), c->used)) {
      spill_failure_ = "writing the spill file in " + spill_dir_ + " failed (" + std::strerror(errno) + ")";
      return false;
    }
    spilled_index_.push_back({c->thread, c->seq, off, c->used});
    spilled_ += c->used;
    in_memory_.fetch_sub(c->capacity, std::memory_order_relaxed);
    Chunk* next = c->next;
    free_chunk(c);
    c = next;
    ts->head = c;  // a later write failure leaves the unspilled rest in place
  }
  ts->head = nullptr;
  ts->current = nullptr;
  return true;
}

Chunk* TraceStore::new_chunk(ThreadState* ts, size_t need) {
  std::lock_guard<std::mutex> g(mu_);
  if (state_.load(std::memory_order_relaxed) == StoreState::Stopped) return nullptr;
  // A thread's first chunk is small: programs that run many short-lived threads, each making
  // a few MPI calls, must not pin a full chunk per thread.
  const uint64_t first = std::min<uint64_t>(chunk_bytes_, 64 * 1024);
  const uint64_t size = std::max<uint64_t>(ts->next_seq == 0 ? first : chunk_bytes_, need);
  if (in_memory_.load(std::memory_order_relaxed) + size > cap_) {
    const StoreState before = state_.load(std::memory_order_relaxed);
    if (policy_ == FullPolicy::Spill && spill_thread_chunks(ts)) {
      state_.store(StoreState::Spilled, std::memory_order_relaxed);
      if (before == StoreState::Ok && rank_ == 0 && !quiet_) say("trace memory cap reached on rank 0: spilling to " + spill_dir_);
    } else {
      state_.store(StoreState::Stopped, std::memory_order_relaxed);
      // Said once, by rank 0 (every rank saying it would be P lines); the report has the count.
      if (rank_ == 0)
        say("trace memory cap reached on rank 0: recording stopped" +
             (spill_failure_.empty() ? std::string(" (on_full=stop)") : " (" + spill_failure_ + ")") +
             "; the report says what this approximates");
      return nullptr;
    }
  }
  Chunk* c = allocate_chunk(size);
  if (!c) {
    state_.store(StoreState::Stopped, std::memory_order_relaxed);
    return nullptr;
  }
  in_memory_.fetch_add(size, std::memory_order_relaxed);
  c->thread = ts->index;
  c->seq = ts->next_seq++;
  return c;
}

std::vector<Chunk*> TraceStore::read_spilled(uint32_t thread) {
  std::vector<Chunk*> out;
  std::vector<SpilledChunk> mine;
  for (const SpilledChunk& s : spilled_index_)
    if (s.thread == thread) mine.push_back(s);
  std::sort(mine.begin(), mine.end(), [](const SpilledChunk& a, const SpilledChunk& b) { return a.seq < b.seq; });
  for (const SpilledChunk& s : mine) {
    Chunk* c = allocate_chunk(s.used);
    if (!c) break;
    c->thread = s.thread;
    c->seq = s.seq;
    c->used = s.used;
    if (pread(spill_fd_, c->data(), s.used, static_cast<off_t>(s.offset)) != static_cast<ssize_t>(s.used)) {
      free_chunk(c);
      break;
    }
    out.push_back(c);
  }
  return out;
}

bool TraceStore::try_peek(ThreadState* const** threads, size_t* nt, const SpilledChunk** spilled, size_t* nsp) {
  if (!mu_.try_lock()) return false;
  *threads = threads_.data();
  *nt = threads_.size();
  *spilled = spilled_index_.data();
  *nsp = spilled_index_.size();
  return true;  // locked until end_peek()
}

void TraceStore::release_chunks() {
  std::lock_guard<std::mutex> g(mu_);
  for (ThreadState* ts : threads_) {
    for (Chunk* c = ts->head; c;) {
      Chunk* next = c->next;
      free_chunk(c);
      c = next;
    }
    ts->head = ts->current = nullptr;
    ts->pos = ts->end = nullptr;
  }
  // Chunks made by force_room (the Finalize record) were never counted: nothing is left.
  in_memory_.store(0, std::memory_order_relaxed);
}

void TraceStore::release_first_chunk(ThreadState* ts) {
  // Under the lock the crash-time writer peeks with. in_memory_ is not lowered: recording is
  // over, and release_chunks() zeroes it.
  std::lock_guard<std::mutex> g(mu_);
  Chunk* c = ts->head;
  if (!c || c == ts->current) return;
  ts->head = c->next;
  free_chunk(c);
}

void TraceStore::release_spill() {
  if (spill_fd_ >= 0) {
    ::close(spill_fd_);
    spill_fd_ = -1;
  }
}

}  // namespace cpath
