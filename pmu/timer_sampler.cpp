#include "pmu/timer_sampler.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "pmu/thread_hook.h"

// The ring's slots are published through their sequence numbers (C++ atomics), which helgrind
// does not model: tell it, so its runs in the test suite see the real ordering. No-ops (a few
// instructions of valgrind's magic sequence) outside valgrind.
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define CPATH_HAPPENS_BEFORE(a) ANNOTATE_HAPPENS_BEFORE(a)
#define CPATH_HAPPENS_AFTER(a) ANNOTATE_HAPPENS_AFTER(a)
#else
#define CPATH_HAPPENS_BEFORE(a) ((void)(a))
#define CPATH_HAPPENS_AFTER(a) ((void)(a))
#endif

namespace cpath::pmu::timer {
namespace {

constexpr uint64_t kRing = uint64_t{1} << 16;  // slots; drained every kDrainNs
constexpr long kDrainNs = 20 * 1000 * 1000;

// What the handler writes; `seq` = position + 1 once the slot is complete.
struct Slot {
  std::atomic<uint64_t> seq;
  uint64_t time_ns;
  uint64_t ip;
  uint64_t weight_ns;
  uint32_t tid;
};

struct Timer {
  pid_t tid;
  timer_t id;
  int64_t cpu0;       // the thread's CPU clock when armed (-1: unreadable)
  bool gone = false;  // exited: its CPU time is in g_cpu
};

// A timed thread's CPU time while it was timed, read when it exits or when sampling halts:
// stop() compares it with the weight of the thread's samples (unsampled()).
struct ThreadCpu {
  pid_t tid;
  int64_t cpu_ns;
  int blocked;  // SIGPROF blocked when read: 1, 0, -1 not known (read from another thread)
};

// Constant-initialised: read by the handler and the thread hook at any time.
std::atomic<bool> g_on{false};
std::atomic<uint64_t> g_head{0};  // next position to reserve
std::atomic<uint64_t> g_tail{0};  // next position the drain thread reads
std::atomic<uint64_t> g_lost{0};  // ring full
std::atomic<uint64_t> g_interval{0};
Slot* g_ring = nullptr;           // mmap'ed once, never freed

std::mutex g_mu;                  // timers, samples, drain thread
std::vector<Timer>* g_timers = nullptr;
std::vector<ThreadCpu>* g_cpu = nullptr;
std::vector<UnsampledThread>* g_unsampled = nullptr;
pthread_key_t g_exit_key;  // its destructor reads an exiting timed thread's CPU time
bool g_exit_key_ready = false;
std::vector<Sample>* g_samples = nullptr;
uint64_t g_max = 0, g_dropped = 0;
pthread_t g_drain{};
bool g_drain_started = false;
std::atomic<bool> g_stop{false};
pthread_cond_t g_wake;      // stop() -> drain thread, with g_mu; on CLOCK_MONOTONIC (a wall
bool g_wake_ready = false;  // clock stepped back must not stretch the drain period)
bool g_handler_installed = false;
std::atomic<bool> g_released{false};  // release_sigprof stopped this run's sampling
uint32_t g_released_threads = 0;        // the threads timed until then

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

clockid_t thread_clock(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6); }

int64_t read_clock(clockid_t c) {
  timespec ts;
  if (clock_gettime(c, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

uint64_t ip_of(void* uc) {
  const ucontext_t* u = static_cast<const ucontext_t*>(uc);
#if defined(__x86_64__)
  return static_cast<uint64_t>(u->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uint64_t>(u->uc_mcontext.pc);
#else
  (void)u;
  return 0;
#endif
}

// Async-signal-safe: atomics, clock_gettime (vDSO) and plain stores only.
void on_sigprof(int, siginfo_t* si, void* uc) {
  if (!g_on.load(std::memory_order_acquire) || si == nullptr || si->si_code != SI_TIMER) return;
  const int saved = errno;
  uint64_t h = g_head.load(std::memory_order_relaxed);
  do {
    if (h - g_tail.load(std::memory_order_acquire) >= kRing) {
      g_lost.fetch_add(1, std::memory_order_relaxed);
      errno = saved;
      return;
    }
  } while (!g_head.compare_exchange_weak(h, h + 1, std::memory_order_acq_rel));
  CPATH_HAPPENS_AFTER(&g_tail);  // the drain finished with this slot's previous use
  Slot& s = g_ring[h % kRing];
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  s.time_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  s.ip = ip_of(uc);
  // Timer overruns: expiries the kernel folded into this one signal.
  s.weight_ns = g_interval.load(std::memory_order_relaxed) * (1 + static_cast<uint64_t>(si->si_overrun));
  s.tid = static_cast<uint32_t>(si->si_value.sival_int);
  CPATH_HAPPENS_BEFORE(&s.seq);
  s.seq.store(h + 1, std::memory_order_release);
  errno = saved;
}

// Requires g_mu.
void drain_locked() {
  uint64_t t = g_tail.load(std::memory_order_relaxed);
  const uint64_t h = g_head.load(std::memory_order_acquire);
  for (; t < h; ++t) {
    Slot& s = g_ring[t % kRing];
    if (s.seq.load(std::memory_order_acquire) != t + 1) break;  // a handler still writing
    CPATH_HAPPENS_AFTER(&s.seq);
    if (g_samples->size() < g_max) {
      Sample x;
      x.time_ns = s.time_ns;
      x.ip = s.ip;
      x.tid = s.tid;
      x.weight_ns = s.weight_ns;
      g_samples->push_back(x);
    } else {
      ++g_dropped;
    }
    CPATH_HAPPENS_BEFORE(&g_tail);
    g_tail.store(t + 1, std::memory_order_release);
  }
}

void* drain_main(void*) {
  // Waits on g_wake rather than sleeping, so that stop() need not wait out the period: a
  // plain nanosleep made every rank's MPI_Finalize wait up to 20 ms for the join (cg.W: 20 ms
  // of 93 ms of post-processing). g_stop is set under g_mu, so no wake-up is missed.
  try {
    std::unique_lock<std::mutex> lock(g_mu);
    while (!g_stop.load(std::memory_order_acquire)) {
      timespec until{};
      clock_gettime(CLOCK_MONOTONIC, &until);
      until.tv_nsec += kDrainNs;
      if (until.tv_nsec >= 1000000000L) until.tv_sec += 1, until.tv_nsec -= 1000000000L;
      while (!g_stop.load(std::memory_order_acquire) &&
             pthread_cond_timedwait(&g_wake, lock.mutex()->native_handle(), &until) == 0) {
      }
      if (g_stop.load(std::memory_order_acquire)) break;
      try {
        drain_locked();
      } catch (...) {
        // Out of memory: the ring fills and further samples count as lost.
      }
    }
  } catch (...) {
    // The lock failed: nothing drains; stop() takes what the ring holds.
  }
  return nullptr;
}

// Requires g_mu. A thread's CPU clock from its tid (what glibc's pthread_getcpuclockid does:
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
bool arm_locked(pid_t tid) {
  // Timers of exited threads are never removed, and the kernel recycles tids: a timer with
  // this tid may be bound to a dead thread's clock (a timer on a thread CPU clock never fires
  // once that thread has gone). Replace it, in its slot, so the new thread is sampled.
  Timer* slot = nullptr;
  for (Timer& t : *g_timers)
    if (t.tid == tid) {
      timer_delete(t.id);
      slot = &t;
      break;
    }
  auto drop_slot = [&] {
    if (slot) g_timers->erase(g_timers->begin() + (slot - g_timers->data()));
  };
  const clockid_t clock = thread_clock(tid);
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev.sigev_value.sival_int = tid;
  ev._sigev_un._tid = tid;
  timer_t id;
  if (timer_create(clock, &ev, &id) != 0) {
    drop_slot();
    return false;
  }
  const uint64_t ns = g_interval.load();
  itimerspec its{};
  its.it_interval.tv_sec = static_cast<time_t>(ns / 1000000000u);
  its.it_interval.tv_nsec = static_cast<long>(ns % 1000000000u);
  its.it_value = its.it_interval;
  if (timer_settime(id, 0, &its, nullptr) != 0) {
    timer_delete(id);
    drop_slot();
    return false;
  }
  const int64_t cpu0 = read_clock(clock);
  if (slot)
    *slot = Timer{tid, id, cpu0, false};
  else
    g_timers->push_back(Timer{tid, id, cpu0, false});
  return true;
}

// The exit of a thread timed since its start (pthread_key destructor: it runs on the thread
// for a return from its routine, pthread_exit and cancellation alike). A thread that blocks
// SIGPROF never receives a signal of its timer, which is then not re-armed either: it yields no
// sample and none counts as lost, so its CPU time is the only trace of it.
void on_thread_exit(void*) {
  if (!g_on.load(std::memory_order_acquire)) return;
  try {
    const int64_t cpu = read_clock(CLOCK_THREAD_CPUTIME_ID);
    sigset_t mask;
    const int blocked = pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0 ? sigismember(&mask, SIGPROF) == 1 : -1;
    const pid_t self = gettid_();
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_on.load() || g_timers == nullptr) return;
    for (Timer& t : *g_timers)
      if (t.tid == self && !t.gone) {
        t.gone = true;
        if (cpu >= 0 && t.cpu0 >= 0) g_cpu->push_back(ThreadCpu{self, cpu - t.cpu0, blocked});
        break;
      }
  } catch (...) {
  }
}

// Whether thread `tid` of this process blocks SIGPROF now (/proc: 1, 0, -1 unreadable).
int sigprof_blocked(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", static_cast<int>(tid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return -1;
  char line[256];
  int r = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "SigBlk:", 7) == 0) {
      const unsigned long long m = std::strtoull(line + 7, nullptr, 16);
      r = (m >> (SIGPROF - 1)) & 1u ? 1 : 0;
      break;
    }
  std::fclose(f);
  return r;
}

void on_fork_child() {
  // Timers are not inherited; the child is unsampled (its mutex may be held by a dead thread).
  g_on.store(false);
  g_drain_started = false;
}

}  // namespace

bool running() noexcept { return g_on.load(std::memory_order_acquire); }

CpuShare cpu_share(const std::vector<Sample>& samples) {
  // Sorted (thread, time) pairs: the drain keeps each thread's samples in time order, but
  // threads interleave.
  std::vector<uint32_t> order(samples.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return samples[a].tid != samples[b].tid ? samples[a].tid < samples[b].tid : samples[a].time_ns < samples[b].time_ns;
  });
  CpuShare s;
  for (size_t k = 1; k < order.size(); ++k) {
    const Sample& prev = samples[order[k - 1]];
    const Sample& x = samples[order[k]];
    if (x.tid != prev.tid || x.weight_ns == 0) continue;
    const double w = static_cast<double>(x.weight_ns);
    const double g = static_cast<double>(x.time_ns - prev.time_ns);
    s.cpu_ns += w;
    s.ran_ns += g > w ? w * w / g : w;
  }
  return s;
}

bool start(uint64_t interval_ns, uint64_t max_samples, std::string& why) noexcept {
  try {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_on.load()) return true;
    struct sigaction old {};
    sigaction(SIGPROF, nullptr, &old);
    const bool ours = g_handler_installed && (old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_sigprof;
    if (!ours && (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != nullptr : old.sa_handler != SIG_DFL)) {
      why = "SIGPROF is in use by the program";
      return false;
    }
    if (g_ring == nullptr) {
      void* p = mmap(nullptr, kRing * sizeof(Slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        why = std::string("cannot map the sample ring: ") + std::strerror(errno);
        return false;
      }
      g_ring = static_cast<Slot*>(p);  // zero pages: every seq is 0
      static std::once_flag once;
      std::call_once(once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
    }
    if (g_timers == nullptr) g_timers = new std::vector<Timer>;
    if (g_cpu == nullptr) g_cpu = new std::vector<ThreadCpu>;
    if (g_unsampled == nullptr) g_unsampled = new std::vector<UnsampledThread>;
    g_cpu->clear();
    g_unsampled->clear();
    if (!g_exit_key_ready) g_exit_key_ready = pthread_key_create(&g_exit_key, on_thread_exit) == 0;
    if (g_samples == nullptr) g_samples = new std::vector<Sample>;
    g_samples->clear();
    g_max = max_samples;
    g_dropped = 0;
    g_lost.store(0);
    g_released.store(false);
    g_released_threads = 0;
    g_interval.store(interval_ns ? interval_ns : 1000000);
    if (!ours) {
      struct sigaction sa {};
      sa.sa_sigaction = on_sigprof;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&sa.sa_mask);
      if (sigaction(SIGPROF, &sa, nullptr) != 0) {
        why = std::string("sigaction(SIGPROF): ") + std::strerror(errno);
        return false;
      }
      g_handler_installed = true;
    }
    g_on.store(true, std::memory_order_release);
    const pid_t self = gettid_();
    if (!arm_locked(self)) {
      g_on.store(false);
      why = std::string("timer_create on the thread CPU clock: ") + std::strerror(errno);
      return false;
    }
    if (DIR* d = opendir("/proc/self/task")) {
      while (dirent* e = readdir(d)) {
        char* end = nullptr;
        const long v = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && v > 0 && v != self) arm_locked(static_cast<pid_t>(v));
      }
      closedir(d);
    }
    // Created after the enumeration and with the real pthread_create: never sampled.
    const detail::PthreadCreateFn real = detail::real_pthread_create();
    g_stop.store(false);
    if (!g_wake_ready) {
      pthread_condattr_t ca;
      pthread_condattr_init(&ca);
      pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
      g_wake_ready = pthread_cond_init(&g_wake, &ca) == 0;
      pthread_condattr_destroy(&ca);
    }
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &prev);
    const int rc = real && g_wake_ready ? real(&g_drain, nullptr, drain_main, nullptr) : EAGAIN;
    pthread_sigmask(SIG_SETMASK, &prev, nullptr);
    g_drain_started = rc == 0;
    if (rc == 0) pthread_setname_np(g_drain, "cpath-pmu");
    // Without a drain thread the ring still holds the first kRing samples for stop().
    return true;
  } catch (...) {
    why = "out of memory";
    g_on.store(false);
    return false;
  }
}

namespace {
// With g_mu held by `lock`: no more samples (timers deleted, drain thread joined; the lock is
// let go while joining). Returns how many threads were timed.
uint32_t halt_locked(std::unique_lock<std::mutex>& lock) {
  g_on.store(false, std::memory_order_release);
  const uint32_t n = static_cast<uint32_t>(g_timers->size());
  for (const Timer& t : *g_timers) {
    // Before the timer goes: the same span of CPU time as its samples.
    const int64_t cpu = t.gone || t.cpu0 < 0 ? -1 : read_clock(thread_clock(t.tid));
    if (cpu >= 0) g_cpu->push_back(ThreadCpu{t.tid, cpu - t.cpu0, -1});
    timer_delete(t.id);
  }
  g_timers->clear();
  if (g_drain_started) {
    g_stop.store(true);
    pthread_cond_signal(&g_wake);
    lock.unlock();
    pthread_join(g_drain, nullptr);
    lock.lock();
    g_drain_started = false;
  }
  return n;
}
}  // namespace

void release_sigprof(const struct sigaction* act) noexcept {
  if (!g_on.load(std::memory_order_acquire)) return;
  if ((act->sa_flags & SA_SIGINFO) && act->sa_sigaction == on_sigprof) return;
  try {
    std::unique_lock<std::mutex> lock(g_mu);
    if (!g_on.load() || g_timers == nullptr) return;
    g_released_threads = halt_locked(lock);
    g_released.store(true);
    drain_locked();
  } catch (...) {
  }
}

bool sigprof_released() noexcept { return g_released.load(); }

void add_current_thread() noexcept {
  if (!g_on.load(std::memory_order_acquire)) return;
  try {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_on.load() && arm_locked(gettid_()) && g_exit_key_ready) pthread_setspecific(g_exit_key, &g_exit_key);
  } catch (...) {
  }
}

std::vector<UnsampledThread> unsampled() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_unsampled ? *g_unsampled : std::vector<UnsampledThread>{};
}

void stop(std::vector<Sample>& out, uint64_t& lost, uint64_t& dropped, uint32_t& threads) noexcept {
  try {
    std::unique_lock<std::mutex> lock(g_mu);
    if (g_timers == nullptr) return;
    const uint32_t timed = halt_locked(lock);
    threads = g_released.load() ? g_released_threads : timed;
    // A handler that reserved a slot before g_on fell finishes within microseconds.
    for (int i = 0; i < 1000 && g_tail.load() != g_head.load(); ++i) {
      drain_locked();
      if (g_tail.load() != g_head.load()) usleep(100);
    }
    g_tail.store(g_head.load());
    // Threads whose CPU time the samples miss (a thread that blocks SIGPROF). A sample weighs
    // the CPU time since the previous one, overruns included, so a sampled thread's weights sum
    // to its CPU time less part of one period; one whose signals were only held for a while
    // gets them, with the overruns, when it unblocks.
    std::vector<std::pair<pid_t, int64_t>> weight;  // (tid, weight), sorted by tid
    for (const Sample& x : *g_samples) weight.emplace_back(static_cast<pid_t>(x.tid), static_cast<int64_t>(x.weight_ns));
    std::sort(weight.begin(), weight.end());
    const int64_t period = static_cast<int64_t>(g_interval.load());
    for (const ThreadCpu& c : *g_cpu) {
      int64_t got = 0;
      for (auto it = std::lower_bound(weight.begin(), weight.end(), std::make_pair(c.tid, INT64_MIN));
           it != weight.end() && it->first == c.tid; ++it)
        got += it->second;
      const int64_t missing = c.cpu_ns - got;
      if (missing < std::max<int64_t>(kUnsampledMinNs, 10 * period) || 2 * got >= c.cpu_ns) continue;
      g_unsampled->push_back(UnsampledThread{static_cast<uint32_t>(c.tid), c.cpu_ns, got,
                                             c.blocked >= 0 ? c.blocked : sigprof_blocked(c.tid)});
    }
    g_cpu->clear();
    out.insert(out.end(), g_samples->begin(), g_samples->end());
    std::vector<Sample>().swap(*g_samples);
    lost = g_lost.load();
    dropped = g_dropped;
  } catch (...) {
  }
}

}  // namespace cpath::pmu::timer
