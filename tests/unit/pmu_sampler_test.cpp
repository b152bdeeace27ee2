// The sampler live on this machine: software cpu-clock here (no hardware
// PMU on the CI VMs), hardware cycles+instructions where a PMU exists.
#include "pmu/sampler.h"
#include "pmu/timer_sampler.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <signal.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <string>

namespace cpath::pmu {
namespace {

uint64_t now_ns(clockid_t clk) {
  timespec ts;
  clock_gettime(clk, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

uint32_t gettid_u32() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

// What the sampler should pick here: hardware iff a cycles event opens.
EventSource expected_source() {
  perf_event_attr a;
  std::memset(&a, 0, sizeof(a));
  a.size = sizeof(a);
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0) return EventSource::software;
  close(static_cast<int>(fd));
  return EventSource::hardware;
}

// Spins until this thread has used `ns` of CPU time; returns what it used.
uint64_t burn_cpu(uint64_t ns) {
  const uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  volatile uint64_t x = 1;
  while (now_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns)
    for (int i = 0; i < 10000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return now_ns(CLOCK_THREAD_CPUTIME_ID) - start;
}

struct Burner {
  uint64_t ns = 0;
  uint64_t used = 0;
  uint32_t tid = 0;
};

void* burner_main(void* p) {
  auto* b = static_cast<Burner*>(p);
  b->tid = gettid_u32();
  b->used = burn_cpu(b->ns);
  return nullptr;
}

struct Stats {
  uint64_t count = 0, weight = 0;
};

Stats samples_of(uint32_t tid) {
  Stats st;
  for (const Sample& s : sampler_samples())
    if (s.tid == tid) {
      ++st.count;
      st.weight += s.weight_ns;
    }
  return st;
}

TEST(Sampler, EndToEndMainThreadAndThreadCreatedAfterStart) {
  const uint64_t t0 = now_ns(CLOCK_MONOTONIC_RAW);
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o)) << sampler_stats().note;
  EXPECT_TRUE(sampler_stats().running);
  EXPECT_TRUE(sampler_samples().empty());  // not readable while running

  Burner worker;
  worker.ns = 200000000;
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, nullptr, burner_main, &worker), 0);
  const uint64_t main_used = burn_cpu(200000000);
  pthread_join(th, nullptr);
  sampler_stop();
  const uint64_t t1 = now_ns(CLOCK_MONOTONIC_RAW);

  const SamplerStats st = sampler_stats();
  EXPECT_FALSE(st.running);
  EXPECT_EQ(st.source, expected_source()) << st.note;
  // Without a PMU the automatic choice is the CPU-time timer (no per-switch cost), which fires
  // at the kernel's tick: fewer samples than the nominal rate, weights still in CPU time.
  const bool timer = st.source == EventSource::software;
  if (timer) {
    EXPECT_EQ(st.events_used, "cpu-time timer");
    EXPECT_FALSE(st.has_instructions);
    EXPECT_NE(st.note.find("CPU-time timer"), std::string::npos) << st.note;
    EXPECT_GT(st.effective_hz, 0.0);
    EXPECT_LE(st.effective_hz, 1001.0);
  } else {
    EXPECT_EQ(st.events_used, "cycles+instructions");
    EXPECT_TRUE(st.has_instructions);
  }
  EXPECT_GT(st.samples, 0u);
  EXPECT_EQ(st.samples, sampler_samples().size());
  EXPECT_EQ(st.malformed, 0u);
  EXPECT_GE(st.threads_monitored, 2u);
  RecordProperty("lost", std::to_string(st.lost));

  const Stats main_st = samples_of(gettid_u32());
  const Stats worker_st = samples_of(worker.tid);
  // On a loaded machine the kernel folds a CPU timer's expiries into one late signal (its
  // overrun, in the weight): 200 ms of CPU gave 2-5 samples with 4 busy loops on 2 cores. The
  // weights below carry the CPU time either way; the count only has to show each thread.
  EXPECT_GT(main_st.count, timer ? 0u : 20u);
  EXPECT_GT(worker_st.count, timer ? 0u : 20u);

  for (const Sample& s : sampler_samples()) {
    EXPECT_GE(s.time_ns, t0);
    EXPECT_LE(s.time_ns, t1);
    EXPECT_NE(s.ip, 0u);
    EXPECT_EQ(s.chain_len, 0u);
  }

  // Weights estimate CPU time; only user-mode samples are kept, and lost
  // samples lose their weight in period mode, so allow a generous band.
  const double burned = double(main_used + worker.used);
  const double weighed = double(main_st.weight + worker_st.weight);
  EXPECT_GT(weighed, 0.5 * burned) << "weights " << weighed << " vs cpu " << burned;
  EXPECT_LT(weighed, 1.5 * burned) << "weights " << weighed << " vs cpu " << burned;

  sampler_stop();  // idempotent
  EXPECT_EQ(sampler_stats().samples, st.samples);
}

std::atomic<bool> g_release{false};

void* spin_until_released(void* p) {
  auto* tid = static_cast<std::atomic<uint32_t>*>(p);
  tid->store(gettid_u32());
  volatile uint64_t x = 0;
  while (!g_release.load()) ++x;
  return nullptr;
}

TEST(Sampler, ThreadsThatExistedBeforeStartAreSampled) {
  std::atomic<uint32_t> tid{0};
  g_release = false;
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, nullptr, spin_until_released, &tid), 0);  // sampler not running
  while (tid.load() == 0) sched_yield();

  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  ASSERT_TRUE(sampler_start(o));  // already running: no-op
  burn_cpu(100000000);
  g_release = true;
  pthread_join(th, nullptr);
  sampler_stop();
  EXPECT_GT(samples_of(tid.load()).count, 5u);
}

std::string thread_name(const std::string& tid) {
  std::ifstream f("/proc/self/task/" + tid + "/comm");
  std::string name;
  std::getline(f, name);
  return name;
}

uint32_t find_thread_named(const std::string& wanted) {
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return 0;
  uint32_t found = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.' && thread_name(e->d_name) == wanted)
      found = static_cast<uint32_t>(std::stoul(e->d_name));
  closedir(d);
  return found;
}

TEST(Sampler, DrainThreadIsNotSampledAndBlocksSignals) {
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  uint32_t drain_tid = 0;
  for (int attempt = 0; attempt < 200 && drain_tid == 0; ++attempt) {
    drain_tid = find_thread_named("cpath-pmu");
    if (drain_tid == 0) usleep(1000);  // the name is set just after creation
  }
  ASSERT_NE(drain_tid, 0u);
  std::ifstream status("/proc/self/task/" + std::to_string(drain_tid) + "/status");
  std::string line;
  uint64_t blocked = 0;
  while (std::getline(status, line))
    if (line.rfind("SigBlk:", 0) == 0) blocked = std::stoull(line.substr(7), nullptr, 16);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1, SIGALRM, SIGPROF, SIGCHLD})
    EXPECT_TRUE(blocked & (uint64_t{1} << (sig - 1))) << "signal " << sig;
  burn_cpu(50000000);
  sampler_stop();
  EXPECT_EQ(samples_of(drain_tid).count, 0u);
}

TEST(Sampler, RestartDiscardsPreviousSamples) {
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  burn_cpu(50000000);
  sampler_stop();
  const uint64_t first = sampler_stats().samples;
  ASSERT_GT(first, 0u);
  const uint64_t t_restart = now_ns(CLOCK_MONOTONIC_RAW);
  ASSERT_TRUE(sampler_start(o));
  burn_cpu(30000000);
  sampler_stop();
  for (const Sample& s : sampler_samples()) EXPECT_GE(s.time_ns, t_restart);
  sampler_release_samples();
  EXPECT_TRUE(sampler_samples().empty());
}

TEST(Sampler, InvalidEventNamesFallBackWithANote) {
  SamplerOptions o;
  o.quiet = true;
  o.events = "cycles+definitely_not_an_event";
  ASSERT_TRUE(sampler_start(o));
  burn_cpu(30000000);
  sampler_stop();
  const SamplerStats st = sampler_stats();
  EXPECT_NE(st.note.find("definitely_not_an_event"), std::string::npos) << st.note;
  EXPECT_GT(st.samples, 0u);
}

TEST(Sampler, SoftwareGroupReadWeightsFollowTimeEnabled) {
  // Two software events force the group-read path (PERF_SAMPLE_READ with
  // time_enabled), the one hardware sampling uses, on a VM without a PMU.
  SamplerOptions o;
  o.quiet = true;
  o.events = "cpu-clock+task-clock";
  ASSERT_TRUE(sampler_start(o));
  const uint64_t used = burn_cpu(150000000);
  sampler_stop();
  const SamplerStats st = sampler_stats();
  EXPECT_EQ(st.events_used, "cpu-clock+task-clock");
  EXPECT_EQ(st.source, EventSource::software);
  EXPECT_TRUE(st.note.empty()) << st.note;
  const Stats mine = samples_of(gettid_u32());
  EXPECT_GT(mine.count, 20u);
  EXPECT_GT(double(mine.weight), 0.7 * double(used));
  EXPECT_LT(double(mine.weight), 1.3 * double(used) + 20e6);
}

__attribute__((noinline)) uint64_t deep_burn(int depth, uint64_t ns) {
  if (depth == 0) return burn_cpu(ns);
  const uint64_t r = deep_burn(depth - 1, ns);
  asm volatile("" ::: "memory");  // keep the frames
  return r;
}

TEST(Sampler, CallchainsAreCollectedWithoutContextMarkers) {
  SamplerOptions o;
  o.quiet = true;
  o.callchain = true;
  o.freq_hz = 2000;
  ASSERT_TRUE(sampler_start(o));
  deep_burn(3, 60000000);
  sampler_stop();
  const auto& samples = sampler_samples();
  const auto& chains = sampler_callchains();
  ASSERT_FALSE(samples.empty());
  size_t with_chain = 0;
  for (const Sample& s : samples) {
    ASSERT_LE(uint64_t(s.chain_begin) + s.chain_len, chains.size());
    if (s.chain_len == 0) continue;
    ++with_chain;
    EXPECT_EQ(chains[s.chain_begin], s.ip);  // innermost first
    for (uint32_t i = 0; i < s.chain_len; ++i) EXPECT_LT(chains[s.chain_begin + i], uint64_t(PERF_CONTEXT_MAX));
  }
  EXPECT_GT(with_chain, samples.size() / 2);
}

TEST(Sampler, PerfMechanismKeepsPerfEvents) {
  SamplerOptions o;
  o.quiet = true;
  o.mechanism = Mechanism::perf;
  ASSERT_TRUE(sampler_start(o));
  burn_cpu(50000000);
  sampler_stop();
  const SamplerStats st = sampler_stats();
  EXPECT_EQ(st.events_used, expected_source() == EventSource::software ? "cpu-clock" : "cycles+instructions");
  EXPECT_EQ(st.effective_hz, 0.0);
  EXPECT_GT(st.samples, 0u);
}

void program_sigprof(int) {}

TEST(Sampler, TimerLeavesAProgramsSigprofAlone) {
  if (expected_source() != EventSource::software) GTEST_SKIP() << "hardware PMU: perf events are used";
  struct sigaction mine {}, old {};
  mine.sa_handler = program_sigprof;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(sigaction(SIGPROF, &mine, &old), 0);
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  burn_cpu(30000000);
  sampler_stop();
  const SamplerStats st = sampler_stats();
  EXPECT_EQ(st.events_used, "cpu-clock") << "SIGPROF has the program's handler: perf cpu-clock instead";
  EXPECT_NE(st.note.find("SIGPROF"), std::string::npos) << st.note;
  struct sigaction now {};
  sigaction(SIGPROF, nullptr, &now);
  EXPECT_EQ(now.sa_handler, program_sigprof) << "the program's handler must stay";
  sigaction(SIGPROF, &old, nullptr);
}

// The share of a CPU between samples, from samples alone: a thread sampled every 4 ms of
// wall time with 4 ms of CPU ran on all of a CPU; every 8 ms, on half; an idle thread's one
// sample after 10 s asleep weighs only its own 1 ms.
TEST(TimerCpuShare, WeighsEachSampleByTheCpuTimeItStandsFor) {
  auto at = [](uint32_t tid, uint64_t ms, uint64_t w_ms) {
    Sample x;
    x.tid = tid;
    x.time_ns = ms * 1000000;
    x.weight_ns = w_ms * 1000000;
    return x;
  };
  std::vector<Sample> v;
  for (uint64_t k = 0; k < 11; ++k) v.push_back(at(1, 4 * k, 4));
  timer::CpuShare s = timer::cpu_share(v);
  EXPECT_DOUBLE_EQ(s.cpu_ns, 40e6);
  EXPECT_DOUBLE_EQ(s.ran_ns / s.cpu_ns, 1.0);
  v.clear();
  for (uint64_t k = 0; k < 11; ++k) v.push_back(at(2, 8 * k, 4));  // descheduled half the time
  v.push_back(at(3, 0, 1));
  v.push_back(at(3, 10000, 1));  // asleep 10 s
  s = timer::cpu_share(v);
  EXPECT_DOUBLE_EQ(s.cpu_ns, 41e6);
  EXPECT_NEAR(s.ran_ns / s.cpu_ns, (40e6 * 0.5 + 1e6 * 1e-4) / 41e6, 1e-12);
  // Interleaved threads: each against its own previous sample, not its neighbour's.
  std::vector<Sample> w = {at(5, 0, 4), at(6, 1, 4), at(5, 4, 4), at(6, 5, 4)};
  s = timer::cpu_share(w);
  EXPECT_DOUBLE_EQ(s.ran_ns / s.cpu_ns, 1.0);
}

// The real timer, two busy threads pinned to one CPU: neither can run on more than about half
// of it, whatever else loads the machine, so the measured share must say so (the report then
// calls the function times approximate).
TEST(Sampler, TimerMeasuresTheShareOfACpuBetweenSamples) {
  if (expected_source() != EventSource::software) GTEST_SKIP() << "hardware PMU: perf events are used";
  cpu_set_t old_set;
  ASSERT_EQ(sched_getaffinity(0, sizeof old_set, &old_set), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &old_set)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // the worker inherits it
  SamplerOptions o;
  o.quiet = true;
  o.mechanism = Mechanism::timer;
  ASSERT_TRUE(sampler_start(o)) << sampler_stats().note;
  Burner worker;
  worker.ns = 300000000;
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, nullptr, burner_main, &worker), 0);
  burn_cpu(300000000);
  pthread_join(th, nullptr);
  sampler_stop();
  sched_setaffinity(0, sizeof old_set, &old_set);
  const SamplerStats st = sampler_stats();
  ASSERT_EQ(st.events_used, "cpu-time timer") << st.note;
  ASSERT_GT(st.timer_cpu_ns, 0.0);
  EXPECT_LT(st.timer_ran_ns / st.timer_cpu_ns, 0.7);
  EXPECT_GT(st.timer_ran_ns, 0.0);
}

// Thread pools and I/O threads often block every signal: the timer's SIGPROF then stays pending
// and the thread is never sampled. The sampler must name such threads with the CPU time it
// missed: one that exits before the stop (read at its exit) and one still running (read at the
// stop), against a thread of the same work with signals open, which is sampled.
struct Blocker {
  uint64_t ns = 0, used = 0;
  uint32_t tid = 0;
  bool block = true, linger = false;
  std::atomic<bool> done{false}, release{false};
};
void* blocker_main(void* p) {
  auto* b = static_cast<Blocker*>(p);
  b->tid = gettid_u32();
  if (b->block) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
  }
  b->used = burn_cpu(b->ns);
  b->done.store(true);
  while (b->linger && !b->release.load()) usleep(1000);
  return nullptr;
}

TEST(Sampler, TimerNamesThreadsThatBlockSigprof) {
  if (expected_source() != EventSource::software) GTEST_SKIP() << "hardware PMU: perf events are used";
  SamplerOptions o;
  o.quiet = true;
  o.mechanism = Mechanism::timer;
  ASSERT_TRUE(sampler_start(o)) << sampler_stats().note;
  Blocker gone, alive, open;
  gone.ns = alive.ns = open.ns = 150000000;
  alive.linger = true;
  open.block = false;
  pthread_t a, b, c;
  ASSERT_EQ(pthread_create(&a, nullptr, blocker_main, &gone), 0);
  ASSERT_EQ(pthread_create(&b, nullptr, blocker_main, &alive), 0);
  ASSERT_EQ(pthread_create(&c, nullptr, blocker_main, &open), 0);
  pthread_join(a, nullptr);
  pthread_join(c, nullptr);
  while (!alive.done.load()) usleep(1000);
  sampler_stop();
  alive.release.store(true);
  pthread_join(b, nullptr);
  const std::vector<timer::UnsampledThread> u = timer::unsampled();
  auto find = [&](uint32_t tid) -> const timer::UnsampledThread* {
    for (const auto& x : u)
      if (x.tid == tid) return &x;
    return nullptr;
  };
  for (const Blocker* x : {&gone, &alive}) {
    const timer::UnsampledThread* t = find(x->tid);
    ASSERT_NE(t, nullptr) << "thread " << x->tid << " blocked SIGPROF and was not named";
    EXPECT_EQ(t->sigprof_blocked, 1);
    EXPECT_EQ(t->sampled_ns, 0);
    // Its CPU time from its start (it was timed from its first instruction on).
    EXPECT_GE(t->cpu_ns, static_cast<int64_t>(x->used));
    EXPECT_LT(t->cpu_ns, static_cast<int64_t>(x->used) + 50000000);
  }
  EXPECT_EQ(find(open.tid), nullptr);
  EXPECT_GT(samples_of(open.tid).count, 0u);
  EXPECT_EQ(sampler_stats().unsampled.size(), u.size());
}

std::atomic<int> g_program_sigprofs{0};
void counting_sigprof(int) { g_program_sigprofs.fetch_add(1); }

// A program that installs its own SIGPROF handler while the timer samples (its own profiler)
// takes SIGPROF back: none of libcpath's signals reach it, the samples before are kept and the
// note says why the sampling stopped. Both ways of installing it: sigaction and signal.
TEST(Sampler, ProgramsLaterSigprofHandlerGetsNoSignalOfOurs) {
  if (expected_source() != EventSource::software) GTEST_SKIP() << "hardware PMU: perf events are used";
  for (int way = 0; way < 2; ++way) {
    SamplerOptions o;
    o.quiet = true;
    ASSERT_TRUE(sampler_start(o)) << sampler_stats().note;
    burn_cpu(100000000);
    g_program_sigprofs = 0;
    struct sigaction mine {}, old {};
    mine.sa_handler = counting_sigprof;
    sigemptyset(&mine.sa_mask);
    if (way == 0) ASSERT_EQ(sigaction(SIGPROF, &mine, &old), 0);
    else old.sa_handler = signal(SIGPROF, counting_sigprof);
    burn_cpu(200000000);
    const int got = g_program_sigprofs.load();
    sampler_stop();
    const SamplerStats st = sampler_stats();
    EXPECT_LE(got, 1) << "way " << way << ": libcpath's timer kept signalling the program's handler";
    EXPECT_GT(st.samples, 0u) << "the samples before the program's handler are kept";
    EXPECT_NE(st.note.find("its own SIGPROF handler"), std::string::npos) << st.note;
    struct sigaction now {};
    sigaction(SIGPROF, nullptr, &now);
    EXPECT_EQ(now.sa_handler, counting_sigprof);
    sigaction(SIGPROF, &old, nullptr);
  }
}

void* noop(void*) { return nullptr; }

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST(Sampler, ForkedChildStartsUnsampledAndCanSampleItself) {
  // ASan/TSan runtimes do not reset their allocator locks in a forked child
  // of a multithreaded process (glibc does), so the child can hang there.
  if (kSanitized) GTEST_SKIP() << "fork of a multithreaded process under a sanitizer";
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // No drain thread here: the hook must pass through and stop must not
    // join a thread that only exists in the parent.
    int code = 0;
    if (sampler_stats().running) code |= 1;
    pthread_t t;
    if (pthread_create(&t, nullptr, noop, nullptr) != 0) code |= 2;
    else pthread_join(t, nullptr);
    sampler_stop();
    // A fresh start in the child drops the parent's descriptors and works.
    // Under load the kernel can drop every signal of a short burn (see
    // ThreadsFromSharedLibrariesAreSampled): a few tries, each a fresh start.
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (!sampler_start(o)) code |= 4;
      burn_cpu(30000000);
      sampler_stop();
      if (sampler_stats().samples > 0) break;
    }
    if (sampler_stats().samples == 0) code |= 8;
    for (const Sample& s : sampler_samples())
      if (s.tid != gettid_u32()) code |= 16;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  burn_cpu(20000000);
  sampler_stop();
  for (int attempt = 0; attempt < 4 && sampler_stats().samples == 0; ++attempt) {
    ASSERT_TRUE(sampler_start(o));
    burn_cpu(20000000);
    sampler_stop();
  }
  EXPECT_GT(sampler_stats().samples, 0u);
  for (const Sample& s : sampler_samples()) EXPECT_NE(s.tid, static_cast<uint32_t>(child));
}

TEST(Sampler, StopWithoutStartIsHarmless) {
  sampler_stop();
  sampler_stop();
  SUCCEED();
}

}  // namespace
}  // namespace cpath::pmu
