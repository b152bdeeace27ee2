#include "runtime.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>
#include <exception>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "call_info.h"
#include "call_path.h"
#include "comm_registry.h"
#include "crash_trace.h"
#include "finalize_pipeline.h"
#include "module_map.h"
#include "process_start.h"
#include "report_dir.h"
#include "record_writer.h"
#include "trace_store.h"
#include "unrecorded.h"
#include "pmu/thread_hook.h"
#include "tool_collectives.h"

namespace cpath {

Runtime& runtime() {
  static Runtime r;
  return r;
}

void note(const std::string& line) {
  std::string s = "libcpath: " + line + "\n";
  (void)!::write(2, s.data(), s.size());
}

void info(const std::string& line) {
  if (!runtime().opt.quiet) note(line);
}

void* next_symbol(const char* name) {
  void* const p = dlsym(RTLD_NEXT, name);
  if (!p) {
    note(std::string("no definition of ") + name + " after libcpath's; cannot continue");
    std::abort();
  }
  return p;
}

// Depth of nested MPI_Init/MPI_Finalize wrappers on this thread (MPICH's Fortran binding
// calls the C entry point, so both our Fortran and C wrappers run).
static __thread int t_env_depth = 0;

static std::string executable_name() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "app";
  return basename_of(std::string(buf, static_cast<size_t>(n)));
}

// Set when any MPI_Init wrapper runs. A plain atomic, not in Runtime: the exit check
// (exit_check.cpp) runs from atexit, after Runtime's destructor may have run.
static std::atomic<bool> g_init_seen{false};
static std::atomic<bool> g_bypass_told{false};

bool init_seen() { return g_init_seen.load(); }

void tell_init_bypassed() {
  if (g_bypass_told.exchange(true)) return;
  note("MPI was initialised without passing through libcpath (an MPI binding it does not wrap, "
       "or PMPI_Init called directly): nothing was recorded and no report is written");
}

// MPI_Finalize came through a wrapper, MPI_Init did not. MPI is still up: rank 0 speaks.
static void check_init_bypassed_at_finalize() {
  if (g_init_seen.load()) return;
  int flag = 0, rank = 0;
  if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) tell_init_bypassed();
}


uint64_t before_init() {
  if (t_env_depth++ > 0) return 0;
  g_init_seen.store(true);
  Runtime& rt = runtime();
  rt.preinit_ns = process_age_ns();
  rt.warnings.clear();
  rt.opt = parse_options(std::getenv(kOptionsEnv), &rt.warnings);
  clock_select(rt.opt.clock == "monotonic" ? "monotonic" : nullptr);
  if (rt.opt.clock == "tsc" && !g_clock_uses_tsc)
    rt.warnings.push_back("option clock=tsc: this CPU has no invariant TSC; using CLOCK_MONOTONIC_RAW");
  rt.cal_init = clock_point();
  return ticks();
}

std::string default_report_name(const Runtime& rt) {
  char stamp[32];
  const time_t now = time(nullptr);
  struct tm tmv;
  localtime_r(&now, &tmv);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tmv);
  return "cpath-" + rt.app + "-" + std::to_string(rt.size) + "p-" + stamp;
}

// Settings every rank must agree on, because they decide which collective steps run at
// finalize, and the report directory, which rank 0 names and creates now so that a rank that
// dies before MPI_Finalize knows where its trace goes: rank 0's values win. One broadcast of a
// fixed-size block (O(log P), no O(P) step in MPI_Init).
static void agree_on_settings(Runtime& rt) {
  // Also rank 0's start time: the common base of test clock distortions (clock_injection).
  struct {
    long long flags[12];
    char dir[PATH_MAX];
  } a;
  std::memset(&a, 0, sizeof a);
  if (rt.rank == 0) {
    // A job started by MPI_Comm_spawn shares the parent's options: its own directory next to
    // the parent's, never the parent's files.
    std::string wanted = rt.opt.out_dir;
    if (rt.spawned) {
      wanted = wanted.empty() ? default_report_name(rt) : wanted;
      while (wanted.size() > 1 && wanted.back() == '/') wanted.pop_back();
      wanted += "-spawned";
    }
    const ReportDirChoice c = choose_report_dir(wanted, default_report_name(rt), rt.opt.overwrite);
    if (!c.note.empty()) rt.warnings.push_back(c.note);
    if (c.path.size() < sizeof a.dir) std::memcpy(a.dir, c.path.data(), c.path.size());
    else rt.warnings.push_back("report directory name too long: no report files");
  }
  long long* f = a.flags;
  f[0] = rt.opt.analysis, f[1] = rt.opt.dump, f[2] = rt.opt.sample, f[3] = rt.opt.report, f[4] = rt.opt.path;
  f[5] = static_cast<long long>(rt.opt.top), f[6] = rt.opt.align, f[7] = rt.opt.sim_hosts, f[8] = rt.cal_init.ns;
  f[9] = rt.opt.crash, f[10] = rt.opt.quiet, f[11] = static_cast<long long>(rt.opt.walk);
  tool_bcast(&a, static_cast<int>(sizeof a), MPI_BYTE, 0, rt.tool_comm);
  rt.opt.analysis = f[0], rt.opt.dump = f[1], rt.opt.sample = f[2], rt.opt.report = f[3], rt.opt.path = f[4];
  rt.opt.top = static_cast<uint32_t>(f[5]), rt.opt.align = f[6], rt.opt.sim_hosts = static_cast<int32_t>(f[7]);
  rt.inject_base_ns = f[8];
  rt.opt.crash = f[9], rt.opt.quiet = f[10];
  rt.opt.walk = static_cast<WalkMode>(f[11]);
  a.dir[sizeof a.dir - 1] = '\0';
  rt.out_dir = a.dir;
}

void after_init(unsigned call, uint64_t t0, const void* caller, int rc, int provided) {
  const int64_t mpi_returned_ns = monotonic_raw_ns();
  if (--t_env_depth > 0) return;
  Runtime& rt = runtime();
  if (rc != MPI_SUCCESS || rt.initialized) return;
  int flag = 0;
  PMPI_Initialized(&flag);
  if (!flag) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rt.rank);
  {
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    rt.spawned = parent != MPI_COMM_NULL;
  }
  PMPI_Comm_size(MPI_COMM_WORLD, &rt.size);
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &rt.tool_comm) != MPI_SUCCESS) {
    note("could not duplicate MPI_COMM_WORLD; recording disabled");
    return;
  }
  rt.thread_level = provided;
  rt.app = executable_name();
  {
    const std::string why = call_path_setup(rt.opt.stack, rt.opt.skip);
    if (!why.empty()) rt.warnings.push_back(why);
    // The wrapper computed MPI_Init's call site before the walk was set up: with stack > 1 the
    // trace's call sites are path numbers, this one included.
    caller = call_site(caller);
  }
  agree_on_settings(rt);
  if (rt.rank == 0)
    for (const std::string& w : rt.warnings) note(w);
  std::string spill_note;
  trace_store().configure(rt.opt.mem_cap, rt.opt.chunk, rt.opt.spill ? FullPolicy::Spill : FullPolicy::Stop,
                          rt.opt.spill_dir, rt.rank, rt.opt.quiet, &spill_note);
  // Every rank checks its own node-local directory; rank 0 speaks for the job (the report
  // counts the ranks whose spilling failed).
  if (rt.rank == 0 && !spill_note.empty()) note(spill_note);
  comm_registry().init_world(rt.rank, rt.size);
  follow_thread_births();
  rt.initialized = true;
  crash_arm(rt);
  g_active.store(true, std::memory_order_relaxed);
  // Nothing may unwind into the application's MPI_Init.
  try {
    finalize_pipeline_at_init();
  } catch (...) {
    note("rank " + std::to_string(rt.rank) + ": start-up measurement failed; clock alignment will be coarser");
  }
  // The merge bound in ticks, from the rate between MPI_Init's entry and now (no precision
  // needed: it only bounds the gaps between merged polls).
  const double ns_per_tick = make_tick_model(rt.cal_init, clock_point()).ns_per_tick;
  if (ns_per_tick > 0) {
    g_poll_merge_ticks = static_cast<uint64_t>(static_cast<double>(rt.opt.poll_merge_ns) / ns_per_tick);
    g_poll_cpu_ticks = static_cast<uint64_t>(static_cast<double>(rt.opt.poll_cpu_ns) / ns_per_tick);
  }
  // The record ends here, not where PMPI_Init returned: everything above is the application's
  // MPI_Init as it sees it, and tens of ms of it (MPICH: the tool's collectives waiting for the
  // other ranks) were read as its computation before its first call, on the critical path.
  ThreadState* ts = t_state ? t_state : thread_state_create();
  if (ts) {
    const uint64_t t1 = ticks();
    rt.init_tool_ns = std::max<int64_t>(0, monotonic_raw_ns() - mpi_returned_ns);
    RecordWriter w(ts, call, t0, t1, caller, rc != MPI_SUCCESS ? kFlagError : 0u, 0);
    w.aux(provided);
    w.finish();
  }
  g_recording.store(true, std::memory_order_relaxed);
}

void before_finalize(unsigned call, const void* caller) {
  const uint64_t t0 = ticks();
  if (t_env_depth++ > 0) return;
  Runtime& rt = runtime();
  if (!rt.initialized || !g_active.load(std::memory_order_relaxed)) {
    check_init_bypassed_at_finalize();
    return;
  }
  rt.finalized = true;
  g_recording.store(false, std::memory_order_relaxed);
  pmu::set_thread_birth_hooks(nullptr, nullptr);
  ThreadState* ts = t_state ? t_state : thread_state_create();
  if (ts && !ts->busy) {
    // The Finalize record starts the critical-path walk: written even if recording stopped
    // at the memory cap or is paused. Collectives counted while recording was off go first.
    const size_t need = kMaxFixedRecord * (1 + unrecorded_pending());
    if (static_cast<size_t>(ts->end - ts->pos) < need || trace_store().state() == StoreState::Stopped)
      ts->force_room(need);
    flush_unrecorded(ts, t0, true);
    RecordWriter w(ts, call, t0, t0, caller, 0u, 0);
    w.finish();
  }
  g_active.store(false, std::memory_order_relaxed);
  try {
    run_finalize_pipeline();
  } catch (const std::exception& e) {
    note("rank " + std::to_string(rt.rank) + ": analysis stopped (" + e.what() + "); no report from this rank");
  } catch (...) {
    note("rank " + std::to_string(rt.rank) + ": analysis stopped; no report from this rank");
  }
  // Finished or stopped, the analysis is over: a signal from here on comes after it, when the
  // recorded trace may already be freed, and the line above has said why there is no report.
  crash_disarm();
}

void after_finalize() { --t_env_depth; }

void pcontrol(ThreadState* ts, unsigned call, int level, uint64_t t0, uint64_t t1, const void* caller, int rc) {
  auto write = [&] {
    RecordWriter w(ts, call, t0, t1, caller, rc != MPI_SUCCESS ? kFlagError : 0u, 0);
    w.aux(level);
    w.finish();
  };
  if (level == 0) {
    if (g_recording.load(std::memory_order_relaxed)) write();
    g_recording.store(false, std::memory_order_relaxed);
  } else if (level == 1) {
    if (trace_store().state() != StoreState::Stopped) {
      // Collectives made during the pause go into the trace before the calls that follow.
      g_recording.store(true, std::memory_order_relaxed);
      flush_unrecorded(ts, t0, false);
    }
    if (g_recording.load(std::memory_order_relaxed)) write();
  } else if (g_recording.load(std::memory_order_relaxed)) {
    write();
  }
}

void before_abort(int errorcode) {
  g_recording.store(false, std::memory_order_relaxed);
  g_active.store(false, std::memory_order_relaxed);
  crash_on_abort(errorcode);
}

}  // namespace cpath
