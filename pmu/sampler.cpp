#include "pmu/sampler.h"

#include "pmu/module_map.h"

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "pmu/diagnostic.h"
#include "pmu/event_group.h"
#include "pmu/sample_builder.h"
#include "pmu/thread_hook.h"
#include "pmu/timer_sampler.h"

namespace cpath::pmu {
namespace {

constexpr int kPollTimeoutMs = 100;  // safety net: drain even if a wakeup is missed
constexpr uint32_t kMaxRingPages = 4096;

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

struct Monitored {
  explicit Monitored(const EventConfig& c) : builder(c) {}
  EventGroup group;
  SampleBuilder builder;
  uint64_t recent = 0;  // samples since the drain thread last checked the rate
};

constexpr int64_t kRateCheckNs = 1000000000;  // how often the drain thread checks the rate

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool leader_is_software_clock(const EventConfig& c) {
  const perf_event_attr& a = c.events[0].attr;
  return a.type == PERF_TYPE_SOFTWARE && (a.config == PERF_COUNT_SW_CPU_CLOCK || a.config == PERF_COUNT_SW_TASK_CLOCK);
}

struct State {
  std::mutex control_mu;  // serialises start/stop

  // Lock order: reg_mu before data_mu, never the reverse.
  std::mutex reg_mu;
  std::vector<std::unique_ptr<Monitored>> threads;  // only the drain thread or stop() erase
  bool accepting = false;

  // Immutable while running, except the leader's sample period (limit_rate, under reg_mu).
  EventConfig config;
  SamplerOptions options;
  uint32_t ring_pages = 0;
  pid_t owner_pid = 0;

  int wake_fd = -1;
  pthread_t drain_thread{};
  bool drain_started = false;
  bool timer_mode = false;  // sampling by timer_sampler.h instead of perf events
  std::atomic<bool> stop_requested{false};
  std::atomic<uint32_t> threads_monitored{0};
  std::atomic<uint32_t> threads_failed{0};
  std::atomic<bool> open_failure_noted{false};
  std::atomic<bool> ring_shrink_noted{false};
  uint32_t max_rate = 1000;  // samples per second per thread, period mode
  bool rate_noted = false;   // drain thread only

  std::mutex data_mu;
  std::vector<Sample> samples;
  std::vector<uint64_t> chains;
  SamplerStats stats;  // counters and note; thread counts live in the atomics
};

// Never destroyed: the application may exit without calling sampler_stop(),
// and the drain thread must not see its state torn down by static destructors.
State* g_state = nullptr;  // replaced in a forked child, see on_fork_child

State& state() {
  static std::once_flag once;
  std::call_once(once, [] { g_state = new State; });
  return *g_state;
}

// Constant-initialised; read by the pthread_create hook, possibly before main.
std::atomic<bool> g_running{false};

void add_note(State& s, const std::string& msg) {
  {
    std::lock_guard<std::mutex> lock(s.data_mu);
    if (!s.stats.note.empty()) s.stats.note += "; ";
    s.stats.note += msg;
  }
  if (!s.options.quiet) detail::diag("%s", msg.c_str());
}

std::string errno_text(int err) { return std::strerror(err); }

// Appends one drained ring's output to the process store.
class DrainSink final : public RecordSink {
 public:
  explicit DrainSink(State& s) : s_(s) {}
  void begin(Monitored* m) { m_ = m; }

  void on_sample(const DecodedSample& d) override {
    ++m_->recent;
    try {
      Sample x = m_->builder.build(d);
      x.chain_begin = static_cast<uint32_t>(chain_batch_.size());
      for (uint32_t i = 0; i < d.chain_len; ++i) {
        const uint64_t e = d.chain_at(i);
        if (!is_context_marker(e)) chain_batch_.push_back(e);
      }
      x.chain_len = static_cast<uint32_t>(chain_batch_.size() - x.chain_begin);
      batch_.push_back(x);
    } catch (...) {
      ++dropped_;
    }
  }

  // Moves the batch into the store; called without reg_mu held.
  void flush(const DecodeCounts& c) {
    std::lock_guard<std::mutex> lock(s_.data_mu);
    SamplerStats& st = s_.stats;
    st.lost += c.lost;
    st.throttled += c.throttle;
    st.unthrottled += c.unthrottle;
    st.malformed += c.malformed;
    st.dropped += dropped_;
    for (const Sample& b : batch_) {
      if (s_.samples.size() >= s_.options.max_samples ||
          s_.chains.size() + b.chain_len > UINT32_MAX) {
        ++st.dropped;
        continue;
      }
      try {
        Sample x = b;
        x.chain_begin = static_cast<uint32_t>(s_.chains.size());
        s_.chains.insert(s_.chains.end(), chain_batch_.begin() + b.chain_begin,
                         chain_batch_.begin() + b.chain_begin + b.chain_len);
        s_.samples.push_back(x);
      } catch (...) {
        ++st.dropped;
      }
    }
    st.samples = s_.samples.size();
    batch_.clear();
    chain_batch_.clear();
    dropped_ = 0;
  }

 private:
  State& s_;
  Monitored* m_ = nullptr;
  std::vector<Sample> batch_;
  std::vector<uint64_t> chain_batch_;
  uint64_t dropped_ = 0;
};

void drain_all(State& s, const std::vector<Monitored*>& rings, DrainSink& sink) {
  DecodeCounts counts;
  for (Monitored* m : rings) {
    sink.begin(m);
    m->group.drain(s.config.layout, sink, counts);
  }
  sink.flush(counts);
}

bool group_alive(const Monitored& m) {
  pollfd p{m.group.leader_fd(), POLLIN, 0};
  return poll(&p, 1, 0) >= 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) == 0;
}

void wake_drain_thread(State& s) {
  if (s.wake_fd < 0) return;
  const uint64_t one = 1;
  ssize_t r;
  do {
    r = write(s.wake_fd, &one, sizeof(one));
  } while (r < 0 && errno == EINTR);
}

// Requires reg_mu. Opens, enables and registers `tid`'s events.
void open_for_thread_locked(State& s, pid_t tid) {
  for (const auto& m : s.threads)
    if (m->group.tid() == tid && group_alive(*m)) return;  // dead ones: a reused tid
  auto m = std::make_unique<Monitored>(s.config);
  int err = 0;
  std::string what;
  if (!m->group.open(s.config, tid, s.ring_pages, err, what)) {
    if (err == ESRCH) return;  // the thread exited meanwhile; nothing to sample
    s.threads_failed.fetch_add(1);
    if (!s.open_failure_noted.exchange(true))
      add_note(s, "cannot sample thread " + std::to_string(tid) + ": " + what + ": " +
                      errno_text(err) + " (further such failures are only counted)");
    return;
  }
  if (m->group.ring_pages() < s.ring_pages && !s.ring_shrink_noted.exchange(true))
    add_note(s, "perf ring reduced to " + std::to_string(m->group.ring_pages()) +
                    " pages for some threads (locked-memory limit); more samples may be lost");
  m->group.enable();
  s.threads.push_back(std::move(m));
  s.threads_monitored.fetch_add(1);
}

// Period mode: if some thread sampled faster than the limit over the last interval, raise the
// period of every thread's leader (and of threads opened later) by the ratio. The kernel's own
// throttling only protects hardware events, and only at rates far above what a tool can afford.
void limit_rate(State& s, const std::vector<Monitored*>& snap, int64_t dt_ns) {
  uint64_t most = 0;
  for (Monitored* m : snap) {
    most = std::max(most, m->recent);
    m->recent = 0;
  }
  perf_event_attr& leader = s.config.events[0].attr;
  if (leader.freq || dt_ns <= 0) return;
  const double rate = static_cast<double>(most) * 1e9 / static_cast<double>(dt_ns);
  if (rate <= 1.5 * s.max_rate) return;
  const uint64_t old = leader.sample_period;
  uint64_t period = static_cast<uint64_t>(static_cast<double>(old) * rate / s.max_rate) + 1;
  {
    std::lock_guard<std::mutex> lock(s.reg_mu);
    leader.sample_period = period;
    for (const auto& m : s.threads) {
      uint64_t p = period;
      ioctl(m->group.leader_fd(), PERF_EVENT_IOC_PERIOD, &p);
    }
  }
  {
    std::lock_guard<std::mutex> lock(s.data_mu);
    s.stats.period = period;
  }
  if (!s.rate_noted) {
    s.rate_noted = true;
    add_note(s, "sample period " + std::to_string(old) + " gave " + std::to_string(static_cast<uint64_t>(rate)) +
                    " samples per second per thread, more than the limit of " + std::to_string(s.max_rate) +
                    " (option freq=): period raised to " + std::to_string(period));
  }
}

void* drain_main(void* arg) {
  State& s = *static_cast<State*>(arg);
  try {
    DrainSink sink(s);
    std::vector<Monitored*> snap;
    std::vector<pollfd> pfds;
    std::vector<Monitored*> dead;
    int64_t last_check = now_ns();
    while (!s.stop_requested.load(std::memory_order_acquire)) {
      {
        std::lock_guard<std::mutex> lock(s.reg_mu);
        snap.clear();
        for (const auto& m : s.threads) snap.push_back(m.get());
      }
      pfds.clear();
      pfds.push_back(pollfd{s.wake_fd, POLLIN, 0});
      for (Monitored* m : snap) pfds.push_back(pollfd{m->group.leader_fd(), POLLIN, 0});
      const int r = poll(pfds.data(), pfds.size(), kPollTimeoutMs);
      if (r < 0 && errno != EINTR) break;
      if (pfds[0].revents & POLLIN) {
        uint64_t v;
        (void)!read(s.wake_fd, &v, sizeof(v));
      }
      drain_all(s, snap, sink);
      const int64_t t = now_ns();
      if (t - last_check >= kRateCheckNs) {
        limit_rate(s, snap, t - last_check);
        last_check = t;
      }

      // A thread that exited reports POLLHUP; its ring was just drained.
      dead.clear();
      for (size_t i = 0; i < snap.size(); ++i)
        if (pfds[i + 1].revents & (POLLHUP | POLLERR | POLLNVAL)) dead.push_back(snap[i]);
      if (!dead.empty()) {
        std::lock_guard<std::mutex> lock(s.reg_mu);
        for (Monitored* d : dead)
          for (auto it = s.threads.begin(); it != s.threads.end(); ++it)
            if (it->get() == d) {
              s.threads.erase(it);
              break;
            }
      }
    }
  } catch (...) {
    // Out of memory in the drain loop: stop draining; sampler_stop still does
    // the final drain, and ring overflows show up as lost samples.
    detail::diag("PMU drain thread stopped early (out of memory); samples will be lost");
  }
  return nullptr;
}

std::vector<pid_t> list_threads() {
  std::vector<pid_t> tids;
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return tids;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    const long v = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && v > 0) tids.push_back(static_cast<pid_t>(v));
  }
  closedir(d);
  return tids;
}

void on_fork_child() {
  // Only the forking thread survives: the drain thread is gone, and any of
  // our mutexes or containers another thread was using at the fork may be
  // locked or half-updated. The child starts unsampled with a fresh state and
  // abandons the old one (its perf descriptors are CLOEXEC; the rings are
  // MADV_DONTFORK). Taking our locks in a prepare handler instead could
  // deadlock the parent against an allocator's own fork handler.
  g_running.store(false, std::memory_order_release);
  if (g_state != nullptr) {
    if (State* fresh = new (std::nothrow) State) g_state = fresh;
  }
}

// Closes everything; requires control_mu, drain thread not running.
void teardown(State& s) {
  std::lock_guard<std::mutex> lock(s.reg_mu);
  s.accepting = false;
  s.threads.clear();
  if (s.wake_fd >= 0) close(s.wake_fd);
  s.wake_fd = -1;
}

bool start_locked(State& s, const SamplerOptions& o) {
  if (s.owner_pid != 0 && s.owner_pid != getpid()) {
    // A forked child that could not get a fresh state in on_fork_child.
    s.drain_started = false;
    teardown(s);
  }
  {
    std::lock_guard<std::mutex> lock(s.data_mu);
    s.samples.clear();
    s.chains.clear();
    s.stats = SamplerStats{};
  }
  s.options = o;
  s.max_rate = o.max_rate_hz ? o.max_rate_hz : (o.freq_hz ? o.freq_hz : 1000);
  s.rate_noted = false;
  s.owner_pid = getpid();
  s.stop_requested.store(false);
  s.threads_monitored.store(0);
  s.threads_failed.store(0);
  s.open_failure_noted.store(false);
  s.ring_shrink_noted.store(false);

  const detail::PthreadCreateFn real_create = detail::real_pthread_create();
  if (real_create == nullptr) {
    add_note(s, "PMU sampling disabled: cannot resolve pthread_create");
    return false;
  }
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });

  uint32_t pages = 1;
  while (pages < o.ring_pages && pages < kMaxRingPages) pages <<= 1;
  s.ring_pages = pages;
  SamplingParams params;
  params.period = o.period;
  params.freq_hz = o.freq_hz;
  params.callchain = o.callchain;
  params.wakeup_bytes = static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{pages} * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 2, UINT32_MAX));

  {
    std::lock_guard<std::mutex> lock(s.data_mu);
    s.stats.freq_hz = o.period ? 0 : (o.freq_hz ? o.freq_hz : 1000);
    s.stats.period = o.period;
  }
  // The POSIX CPU-time timer: no work at context switches (timer_sampler.h).
  auto start_timer = [&](const std::string& why_not_perf) {
    uint64_t ns = o.period ? o.period : 1000000000u / (o.freq_hz ? o.freq_hz : 1000);
    // Never faster than max_rate_hz per thread, whatever period= says (the kernel's tick caps
    // CPU-time timers too, but a high-resolution kernel must not starve the job either).
    if (o.max_rate_hz && ns < 1000000000u / o.max_rate_hz) {
      ns = 1000000000u / o.max_rate_hz;
      if (o.period)
        add_note(s, "period=" + std::to_string(o.period) + " would sample faster than " + std::to_string(o.max_rate_hz) +
                        " times per CPU second per thread: the timer's period was raised to " + std::to_string(ns) + " ns");
    }
    std::string why;
    if (!timer::start(ns, o.max_samples, why)) return why;
    s.timer_mode = true;
    {
      std::lock_guard<std::mutex> lock(s.data_mu);
      s.stats.source = EventSource::software;
      s.stats.events_used = "cpu-time timer";
    }
    if (!why_not_perf.empty())
      add_note(s, why_not_perf + "; sampling with a POSIX CPU-time timer instead (no cycles or instructions)");
    g_running.store(true, std::memory_order_release);
    s.drain_started = true;
    return std::string();
  };
  s.timer_mode = false;
  if (o.mechanism == Mechanism::timer) {
    const std::string why = start_timer("");
    if (why.empty()) return true;
    add_note(s, "PMU sampling disabled: " + why);
    return false;
  }

  // Pick the configuration by opening it on the calling thread.
  EventConfig cfg;
  bool have = false;
  if (!o.events.empty()) {
    std::string err;
    have = user_event_config(o.events, params, cfg, err);
    if (!have) add_note(s, err + "; using the default events");
  }
  if (!have) cfg = default_hardware_config(params);

  // A software clock counts nanoseconds of CPU time: its period says its rate up front.
  const uint64_t min_clock_period = 1000000000ull / s.max_rate;
  std::string period_note;
  auto limit_clock_period = [&](EventConfig& c) {
    perf_event_attr& a = c.events[0].attr;
    if (a.freq || !leader_is_software_clock(c) || a.sample_period >= min_clock_period) return;
    period_note = "sample period " + std::to_string(a.sample_period) + " ns of " + c.events[0].name +
                  " is faster than " + std::to_string(s.max_rate) + " samples per second per thread (option freq=): using " +
                  std::to_string(min_clock_period);
    a.sample_period = min_clock_period;
  };
  limit_clock_period(cfg);

  const pid_t self = current_tid();
  auto first = std::make_unique<Monitored>(cfg);
  int err = 0;
  std::string what;
  if (!first->group.open(cfg, self, pages, err, what)) {
    std::string why = hardware_unavailable(err) && cfg.source == EventSource::hardware
                          ? "hardware PMU counters unavailable"
                          : "cannot open " + cfg.names();
    why += " (" + what + ": " + errno_text(err) + ")";
    // The timer gives no callchains: with callchain=1 perf events stay.
    if (o.mechanism == Mechanism::automatic && o.events.empty() && !o.callchain) {
      const std::string no_timer = start_timer(why);
      if (no_timer.empty()) return true;
      why += "; no CPU-time timer (" + no_timer + ")";
    }
    cfg = software_fallback_config(params);
    period_note.clear();
    limit_clock_period(cfg);
    if (!first->group.open(cfg, self, pages, err, what)) {
      add_note(s, "PMU sampling disabled: " + why + "; software fallback failed too (" + what + ": " +
                      errno_text(err) + ")");
      return false;
    }
    first->builder = SampleBuilder(cfg);
    add_note(s, why + "; sampling with software cpu-clock instead (no cycles or instructions)");
  }
  s.config = cfg;
  if (!period_note.empty()) add_note(s, period_note);
  {
    std::lock_guard<std::mutex> lock(s.data_mu);
    s.stats.period = cfg.events[0].attr.freq ? 0 : cfg.events[0].attr.sample_period;
    s.stats.source = cfg.source;
    s.stats.events_used = cfg.names();
    s.stats.has_cycles = cfg.cycles_index >= 0;
    s.stats.has_instructions = cfg.instructions_index >= 0;
  }
  if (first->group.ring_pages() < pages)
    add_note(s, "perf ring reduced to " + std::to_string(first->group.ring_pages()) +
                    " pages (locked-memory limit); more samples may be lost");

  s.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s.wake_fd < 0) {
    add_note(s, "PMU sampling disabled: eventfd: " + errno_text(errno));
    return false;
  }

  {
    std::lock_guard<std::mutex> lock(s.reg_mu);
    first->group.enable();
    s.threads.push_back(std::move(first));
    s.threads_monitored.store(1);
    s.accepting = true;
  }
  // From here on the hook registers new threads; enumeration below catches
  // the ones that already exist (duplicates are skipped).
  g_running.store(true, std::memory_order_release);
  for (pid_t tid : list_threads()) {
    if (tid == self) continue;
    std::lock_guard<std::mutex> lock(s.reg_mu);
    open_for_thread_locked(s, tid);
  }

  // Created with the real pthread_create, so never monitored itself, and
  // with all signals blocked so the application's handlers never run on it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const int rc = real_create(&s.drain_thread, nullptr, drain_main, &s);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    g_running.store(false);
    teardown(s);
    add_note(s, "PMU sampling disabled: cannot create the drain thread: " + errno_text(rc));
    return false;
  }
  pthread_setname_np(s.drain_thread, "cpath-pmu");
  s.drain_started = true;
  return true;
}

}  // namespace

bool sampler_start(const SamplerOptions& options) noexcept {
  try {
    State& s = state();
    std::lock_guard<std::mutex> control(s.control_mu);
    if (g_running.load(std::memory_order_acquire)) return true;
    clear_unloaded();
    const bool ok = start_locked(s, options);
    if (!ok) {
      g_running.store(false);
      teardown(s);
      std::lock_guard<std::mutex> lock(s.data_mu);
      s.stats.source = EventSource::none;
    }
    return ok;
  } catch (...) {
    detail::diag("PMU sampling disabled: out of memory at start");
    g_running.store(false);
    return false;
  }
}

void sampler_on_thread_start() noexcept {
  if (!g_running.load(std::memory_order_acquire)) return;
  try {
    State& s = state();
    if (getpid() != s.owner_pid) return;
    std::lock_guard<std::mutex> lock(s.reg_mu);
    if (s.timer_mode) {
      timer::add_current_thread();
      return;
    }
    if (!s.accepting) return;
    open_for_thread_locked(s, current_tid());
    // Under reg_mu: teardown() closes wake_fd under it, so we never write
    // into a descriptor number the application has reused meanwhile.
    wake_drain_thread(s);  // let it poll the new ring
  } catch (...) {
    // Out of memory: this thread stays unsampled; nothing else is affected.
  }
}

void sampler_stop() noexcept {
  try {
    State& s = state();
    std::lock_guard<std::mutex> control(s.control_mu);
    if (!s.drain_started) return;
    if (getpid() != s.owner_pid) return;  // forked child: not ours to stop
    g_running.store(false, std::memory_order_release);
    if (s.timer_mode) {
      std::lock_guard<std::mutex> lock(s.data_mu);
      uint32_t threads = 0;
      timer::stop(s.samples, s.stats.lost, s.stats.dropped, threads);
      s.stats.samples = s.samples.size();
      uint64_t weight = 0;
      for (const Sample& x : s.samples) weight += x.weight_ns;
      s.stats.effective_hz = weight ? static_cast<double>(s.samples.size()) * 1e9 / static_cast<double>(weight) : 0;
      if (timer::sigprof_released())
        s.stats.note += std::string(s.stats.note.empty() ? "" : ". ") +
                        "The program installed its own SIGPROF handler while libcpath sampled: the sampling "
                        "stopped there, so that no SIGPROF of libcpath's reached the program, and the hotspots "
                        "count only the samples taken before";
      s.stats.unsampled = timer::unsampled();
      const timer::CpuShare share = timer::cpu_share(s.samples);
      s.stats.timer_ran_ns = share.ran_ns;
      s.stats.timer_cpu_ns = share.cpu_ns;
      s.threads_monitored.store(threads);
      s.drain_started = false;
      s.timer_mode = false;
      return;
    }
    {
      std::lock_guard<std::mutex> lock(s.reg_mu);
      s.accepting = false;
      for (const auto& m : s.threads) m->group.disable();
    }
    s.stop_requested.store(true, std::memory_order_release);
    wake_drain_thread(s);
    pthread_join(s.drain_thread, nullptr);
    s.drain_started = false;

    // Final drain here, single-threaded: events are disabled, nothing new arrives.
    {
      DrainSink sink(s);
      std::vector<Monitored*> all;
      std::lock_guard<std::mutex> lock(s.reg_mu);
      for (const auto& m : s.threads) all.push_back(m.get());
      drain_all(s, all, sink);
    }
    teardown(s);

    uint64_t lost, dropped, malformed;
    {
      std::lock_guard<std::mutex> lock(s.data_mu);
      lost = s.stats.lost;
      dropped = s.stats.dropped;
      malformed = s.stats.malformed;
    }
    if (lost > 0)
      add_note(s, std::to_string(lost) + " PMU samples lost because a ring buffer was full (raise ring_pages or lower the frequency)");
    if (dropped > 0)
      add_note(s, std::to_string(dropped) + " PMU samples dropped over the max_samples cap");
    if (malformed > 0)
      add_note(s, std::to_string(malformed) + " undecodable perf records skipped");
  } catch (...) {
    detail::diag("PMU sampler stop failed (out of memory)");
  }
}

SamplerStats sampler_stats() noexcept {
  try {
    State& s = state();
    SamplerStats out;
    {
      std::lock_guard<std::mutex> lock(s.data_mu);
      out = s.stats;
    }
    out.threads_monitored = s.threads_monitored.load();
    out.threads_failed = s.threads_failed.load();
    out.running = g_running.load();
    return out;
  } catch (...) {
    return SamplerStats{};
  }
}

const std::vector<Sample>& sampler_samples() noexcept {
  static const std::vector<Sample> empty;
  State& s = state();
  return g_running.load() || s.drain_started ? empty : s.samples;
}

const std::vector<uint64_t>& sampler_callchains() noexcept {
  static const std::vector<uint64_t> empty;
  State& s = state();
  return g_running.load() || s.drain_started ? empty : s.chains;
}

void sampler_release_samples() noexcept {
  try {
    State& s = state();
    std::lock_guard<std::mutex> control(s.control_mu);
    if (s.drain_started) return;
    std::lock_guard<std::mutex> lock(s.data_mu);
    std::vector<Sample>().swap(s.samples);
    std::vector<uint64_t>().swap(s.chains);
  } catch (...) {
  }
}

namespace detail {
bool sampler_wants_new_threads() noexcept { return g_running.load(std::memory_order_acquire); }
}  // namespace detail

}  // namespace cpath::pmu
