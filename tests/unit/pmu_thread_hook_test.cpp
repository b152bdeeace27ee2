// The pthread_create interposer: transparent when the sampler is off (even
// before main), and makes threads created later, also from shared
// libraries such as libstdc++ (std::thread) or an OpenMP runtime, sampled.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <ctime>
#include <thread>

#include "pmu/sampler.h"

namespace cpath::pmu {
namespace {

void* echo_plus_one(void* p) { return reinterpret_cast<void*>(reinterpret_cast<intptr_t>(p) + 1); }

// Runs during static initialisation, before main and before any sampler
// state exists.
struct CreatesThreadBeforeMain {
  void* result = nullptr;
  int rc = -1;
  CreatesThreadBeforeMain() {
    pthread_t t;
    rc = pthread_create(&t, nullptr, echo_plus_one, reinterpret_cast<void*>(41));
    if (rc == 0) pthread_join(t, &result);
  }
} g_before_main;

TEST(ThreadHook, WorksBeforeMain) {
  EXPECT_EQ(g_before_main.rc, 0);
  EXPECT_EQ(reinterpret_cast<intptr_t>(g_before_main.result), 42);
}

TEST(ThreadHook, PassThroughWhenSamplerIsOff) {
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, nullptr, echo_plus_one, reinterpret_cast<void*>(6)), 0);
  void* r = nullptr;
  pthread_join(t, &r);
  EXPECT_EQ(reinterpret_cast<intptr_t>(r), 7);
  EXPECT_EQ(sampler_stats().threads_monitored, 0u);
}

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void burn(uint64_t ns) {
  const uint64_t start = thread_cpu_ns();
  volatile uint64_t x = 0;
  while (thread_cpu_ns() - start < ns)
    for (int i = 0; i < 10000; ++i) x = x + 1;
}

// CPU time the samples of `tid` stand for (timer overruns included).
uint64_t sampled_ns(uint32_t tid, size_t* n) {
  uint64_t w = 0;
  *n = 0;
  for (const Sample& s : sampler_samples())
    if (s.tid == tid) ++*n, w += s.weight_ns;
  return w;
}

TEST(ThreadHook, ThreadsFromSharedLibrariesAreSampled) {
  SamplerOptions o;
  o.quiet = true;
  // On a loaded machine the kernel delivers a CPU timer's signal late, folding the periods
  // into one sample (its weight), and drops a signal still pending when the thread exits: an
  // 80 ms burn then gave 0-3 samples in one try of several (4 busy loops on 2 cores). What
  // this test is about -- the hook put a timer on a thread libstdc++ created -- shows in any
  // try whose samples stand for most of the burn; a try whose signals were dropped says nothing.
  uint64_t best = 0;
  size_t n = 0;
  for (int attempt = 0; attempt < 5 && best < 40000000; ++attempt) {
    ASSERT_TRUE(sampler_start(o));
    uint32_t tid = 0;
    std::thread worker([&] {  // created inside libstdc++, through its PLT
      tid = static_cast<uint32_t>(syscall(SYS_gettid));
      burn(80000000);
    });
    worker.join();
    sampler_stop();
    ASSERT_NE(tid, 0u);
    EXPECT_GE(sampler_stats().threads_monitored, 2u);
    best = std::max(best, sampled_ns(tid, &n));
  }
  EXPECT_GE(best, 40000000u) << "the samples of the worker stand for " << best << " ns of its 80 ms";
}

TEST(ThreadHook, FailedCreationWhileRunningReportsTheError) {
  SamplerOptions o;
  o.quiet = true;
  ASSERT_TRUE(sampler_start(o));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // An impossible stack makes the real pthread_create fail; the hook must
  // return its error and free its trampoline.
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{1} << 46), 0);
  pthread_t t;
  const int rc = pthread_create(&t, &attr, echo_plus_one, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_NE(rc, 0);
  // Creation still works afterwards and passes the argument through.
  ASSERT_EQ(pthread_create(&t, nullptr, echo_plus_one, reinterpret_cast<void*>(1)), 0);
  void* r = nullptr;
  pthread_join(t, &r);
  EXPECT_EQ(reinterpret_cast<intptr_t>(r), 2);
  sampler_stop();
}

}  // namespace
}  // namespace cpath::pmu
