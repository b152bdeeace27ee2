#include "crash_trace.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "byte_io.h"
#include "call_path.h"
#include "clock.h"
#include "comm_registry.h"
#include "comm_topology.h"
#include "finalize_pipeline.h"
#include "module_map.h"
#include "runtime.h"
#include "thread_state.h"
#include "trace_file.h"
#include "trace_store.h"

namespace cpath {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT, SIGXCPU};
constexpr int kMaxSignal = 65;
constexpr size_t kMaxSpans = 16384;

enum State : int { kOff = 0, kArmed = 1, kWriting = 2, kDone = 3 };
std::atomic<int> g_state{kOff};
bool g_write = false;  // crash=1: write traces (else only say why there is no report)
std::atomic<bool> g_consumed{false};  // the chunks are gone (crash_trace_consumed)
bool g_dumped = false;                // dump=1: the trace was written before the analysis
pid_t g_pid = 0;
int g_rank = 0;
int g_size = 1;
// The other ranks' fate is the launcher's: Open MPI's sends SIGTERM first (they write their
// traces), MPICH's hydra sends SIGKILL to every rank's process group at once (verified with
// strace: no SIGTERM, no grace period, not even with -disable-auto-cleanup), so they cannot.
// Read at MPI_Init: getenv is not async-signal-safe.
bool g_launcher_sigkills = false;
uint64_t g_cap = 0;
struct sigaction g_old[kMaxSignal];
bool g_installed[kMaxSignal];

// Prepared at MPI_Init so that the signal path only copies.
char g_dir[PATH_MAX];
char g_file[PATH_MAX + 32];
char g_meta[2048];
size_t g_meta_len = 0;
std::vector<uint8_t>* g_modules = nullptr;  // MODULES section payload
ClockPoint g_cal;
int64_t g_skew = 0;
double g_drift = 0;

struct Span {
  const uint8_t* mem;  // in memory, or nullptr: in the spill file at `off`
  uint64_t off, len;
};
Span g_spans[kMaxSpans];
uint32_t g_thread_first[kMaxSpans];  // per thread: first span, then count
uint32_t g_thread_count[kMaxSpans];
uint32_t g_thread_index[kMaxSpans];
uint8_t g_copy[1 << 16];

// ---- async-signal-safe text and output ---------------------------------------------------

struct Text {
  char* p;
  size_t n, cap;
  void add(const char* s) {
    while (*s && n + 1 < cap) p[n++] = *s++;
  }
  void add(const char* s, size_t len) {
    for (size_t i = 0; i < len && n + 1 < cap; ++i) p[n++] = s[i];
  }
  void num(int64_t v) {
    char b[24];
    int i = 0;
    const bool neg = v < 0;
    uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    do {
      b[i++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u);
    if (neg) b[i++] = '-';
    while (i) add(&b[--i], 1);
  }
};

struct Out {
  int fd;
  bool ok = true;
  void put(const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (ok && n) {
      const ssize_t w = ::write(fd, c, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok = false;
        return;
      }
      c += w;
      n -= static_cast<size_t>(w);
    }
  }
  template <class T>
  void put(T v) {
    put(&v, sizeof v);
  }
  void section(uint32_t type, uint64_t len) {
    put<uint32_t>(type);
    put<uint32_t>(0);
    put<uint64_t>(len);
  }
};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal";
  }
}

// One line on stderr from pieces (no allocation, no stdio).
void say(std::initializer_list<const char*> parts) {
  char line[2 * PATH_MAX + 512];
  Text t{line, 0, sizeof line - 1};
  t.add("libcpath: ");
  for (const char* p : parts) t.add(p);
  t.add("\n");
  Out o{2};
  o.put(line, t.n);
}

// ---- the writer ----------------------------------------------------------------------------

// Collects this rank's record spans (spilled first, then in memory, per thread), at most the
// memory cap in all. Returns the number of threads; when it is not 0 the store stays locked
// (the spans point into its chunks) until the caller's trace_store().end_peek().
size_t collect_spans() {
  TraceStore& store = trace_store();
  size_t nt = 0, ns = 0, nsp = 0;
  ThreadState* const* threads = nullptr;
  const TraceStore::SpilledChunk* spilled = nullptr;
  if (!store.try_peek(&threads, &nt, &spilled, &nsp)) return 0;
  if (nt == 0) {
    store.end_peek();
    return 0;
  }
  const int fd = store.spill_fd();
  uint64_t budget = g_cap;
  size_t out = 0;
  for (size_t k = 0; k < nt && out < kMaxSpans; ++k) {
    ThreadState* ts = threads[k];
    g_thread_index[out] = ts->index;
    g_thread_first[out] = static_cast<uint32_t>(ns);
    bool lost = false;
    for (size_t i = 0; i < nsp; ++i)
      if (spilled[i].thread == ts->index) lost = lost || fd < 0;
    if (!lost) {
      for (size_t i = 0; i < nsp && ns < kMaxSpans && budget; ++i) {
        if (spilled[i].thread != ts->index) continue;
        const uint64_t len = spilled[i].used < budget ? spilled[i].used : budget;
        g_spans[ns++] = {nullptr, spilled[i].offset, len};
        budget -= len;
      }
      for (Chunk* c = ts->head; c && ns < kMaxSpans && budget; c = c->next) {
        uint64_t used = c->used;
        const uint8_t* pos = ts->pos;
        if (c == ts->current && pos >= c->data() && pos <= c->data() + c->capacity)
          used = static_cast<uint64_t>(pos - c->data());
        if (used > budget) used = budget;
        g_spans[ns++] = {c->data(), 0, used};
        budget -= used;
      }
    }
    g_thread_count[out] = static_cast<uint32_t>(ns - g_thread_first[out]);
    ++out;
  }
  return out;
}

void copy_spans(Out& o, size_t first, size_t count) {
  const int fd = trace_store().spill_fd();
  for (size_t i = first; i < first + count; ++i) {
    const Span& s = g_spans[i];
    if (s.mem) {
      o.put(s.mem, s.len);
      continue;
    }
    uint64_t done = 0;
    while (done < s.len && o.ok) {
      const size_t want = s.len - done < sizeof g_copy ? static_cast<size_t>(s.len - done) : sizeof g_copy;
      const ssize_t r = pread(fd, g_copy, want, static_cast<off_t>(s.off + done));
      if (r <= 0) {
        // Keep the section length right: zeros decode as a truncated record.
        std::memset(g_copy, 0, want);
        o.put(g_copy, want);
      } else {
        o.put(g_copy, static_cast<size_t>(r));
      }
      done += r > 0 ? static_cast<uint64_t>(r) : want;
    }
  }
}

// Writes DIR/trace.<rank>.cpt; `reason` goes into the metadata (partial=...). Returns false if
// nothing could be written.
bool write_partial_trace(const char* reason) {
  const int fd = ::open(g_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  Out o{fd};
  const size_t nthreads = collect_spans();
  // Checked again under the store's lock: finalize frees decoded chunks only after saying so
  // and only under that lock, so a crash that began just before the chunks went would write
  // a stream with chunks missing in its middle, which no longer decodes.
  if (g_consumed.load()) {
    if (nthreads) trace_store().end_peek();
    ::close(fd);
    ::unlink(g_file);
    return false;
  }
  size_t ncomms = 0;
  const CommRecord* comms = comm_registry().try_peek(&ncomms);
  if (!comms) ncomms = 0;

  o.put(kTraceMagic, sizeof kTraceMagic);
  o.put<uint32_t>(kTraceVersion);
  uint32_t path_depth = 0, npaths = 0;
  const uint8_t* path_lens = nullptr;
  const uint64_t* path_frames = call_path_raw(&path_depth, &npaths, &path_lens);
  auto frames_of = [&](uint32_t i, uint32_t* len) {
    *len = path_lens[i];
    return path_frames + static_cast<size_t>(i) * path_depth;
  };
  o.put<uint32_t>(static_cast<uint32_t>(5 + (path_depth ? 1 : 0) + nthreads));

  char meta[sizeof g_meta + 512];
  Text m{meta, 0, sizeof meta};
  m.add(g_meta, g_meta_len);
  const StoreState st = trace_store().state();
  m.add("store_state=");
  m.add(st == StoreState::Ok ? "ok" : st == StoreState::Spilled ? "spilled" : "stopped");
  m.add("\npartial=");
  m.add(reason);
  m.add("\nend_tick=");
  m.num(static_cast<int64_t>(ticks()));
  m.add("\n");
  o.section(kSecMeta, m.n);
  o.put(meta, m.n);

  // Clock: ticks -> CLOCK_MONOTONIC_RAW from MPI_Init to now; no alignment between ranks
  // (ranks on one host share the clock; across hosts the partial result says so).
  const TickModel tm = [] {
    TickModel t = make_tick_model(g_cal, clock_point());
    t.inject_skew_ns = g_skew;
    t.inject_drift = g_drift;
    return t;
  }();
  AlignModel align;
  align.ref_local_ns = tm.ns0;
  o.section(kSecClock, kClockSectionBytes);
  put_clock_section(o, tm, align, -1.0);  // -1: unknown error bound

  // Communicator records, unresolved (readers unify them: unify_offline).
  o.section(kSecComms, comms_section_bytes(ncomms, nullptr));
  put_comms_section(o, comms, ncomms, nullptr);
  if (comms) comm_registry().end_peek();

  o.section(kSecModules, g_modules ? g_modules->size() : 0);
  if (g_modules) o.put(g_modules->data(), g_modules->size());

  // Neighbour lists, read in place under their lock (try_lock: never blocks). If a thread is
  // capturing one right now the section is empty: this partial trace then carries no
  // neighbour lists (its neighbourhood collectives get no partners), like the traces written
  // before the crash writer had the section.
  size_t ntopos = 0;
  const CommTopology* topos = topology_try_peek(&ntopos);
  if (!topos) ntopos = 0;
  o.section(kSecTopology, topology_section_bytes(topos, ntopos));
  put_topology_section(o, topos, ntopos);
  if (topos) topology_end_peek();

  // Call paths are published whole before their number is recorded: the first npaths are
  // complete even if a thread is interning one right now.
  if (path_depth) {
    o.section(kSecCallPaths, call_paths_section_bytes(npaths, frames_of));
    put_call_paths_section(o, path_depth, npaths, frames_of);
  }

  for (size_t k = 0; k < nthreads; ++k) {
    uint64_t len = 4;
    for (uint32_t i = 0; i < g_thread_count[k]; ++i) len += g_spans[g_thread_first[k] + i].len;
    o.section(kSecThread, len);
    o.put<uint32_t>(g_thread_index[k]);
    copy_spans(o, g_thread_first[k], g_thread_count[k]);
  }
  if (nthreads) trace_store().end_peek();
  ::close(fd);
  return o.ok;
}

// Why finish() wrote no partial trace (it was asked to and could not, or must not).
const char* why_no_trace(bool consumed) {
  if (!g_write) return " (option crash=0: no trace written)";
  if (!consumed) return " (the partial trace could not be written)";
  if (g_dumped) return " (dump=1 wrote the whole trace before the analysis: cpath-ref reads it)";
  return " (the analysis in MPI_Finalize had already taken the trace: none written; option dump=1 writes it before "
         "the analysis)";
}

// Stops recording, writes the trace once (whichever path gets here first) and says why there
// is no report. `loud`: this rank caused the end (its own fault, abort, exit); a rank the
// launcher terminates because another one died stays quiet unless it is rank 0.
void finish(const char* reason, bool loud) {
  int expected = kArmed;
  if (!g_state.compare_exchange_strong(expected, kWriting)) return;
  if (getpid() != g_pid) return;  // a forked child: not ours
  g_recording.store(false, std::memory_order_relaxed);
  g_active.store(false, std::memory_order_relaxed);
  char rank[16];
  Text r{rank, 0, sizeof rank};
  r.num(g_rank);
  rank[r.n] = '\0';
  const bool consumed = g_consumed.load();
  const bool wrote = g_write && !consumed && write_partial_trace(reason);
  if (loud || g_rank == 0) {
    // Whoever reads this line next looks for the other ranks' traces: say why they may not
    // be there rather than let cpath-ref's "missing_ranks" look like a libcpath failure.
    const char* others = g_size <= 1 ? ""
                         : g_launcher_sigkills
                             ? "; other ranks' traces may be missing: MPICH's launcher (hydra) kills them with SIGKILL"
                             : "; other ranks' traces may be missing if the launcher kills them outright";
    if (wrote)
      say({"rank ", rank, " ", reason, ": no report; partial trace written to ", g_file,
           " (analyse what the ranks wrote with: cpath-ref ", g_dir, others, ")"});
    else
      say({"rank ", rank, " ", reason, ": no report", why_no_trace(consumed)});
  }
  g_state.store(kDone);
}

void chain(int sig, siginfo_t* si, void* uc) {
  const struct sigaction& o = g_old[sig];
  if (o.sa_flags & SA_SIGINFO) {
    if (o.sa_sigaction) o.sa_sigaction(sig, si, uc);
    return;
  }
  if (o.sa_handler == SIG_IGN) return;
  if (o.sa_handler != SIG_DFL) {
    o.sa_handler(sig);
    return;
  }
  // Default action, exactly as without libcpath: a fault the kernel raised happens again when
  // the instruction re-executes (same core dump); a sent signal is raised again.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  const bool fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && si && si->si_code > 0;
  if (!fault) raise(sig);
}

void on_signal(int sig, siginfo_t* si, void* uc) {
  const int saved = errno;
  if (g_state.load() == kArmed) {
    const bool sent_by_launcher = sig == SIGTERM || sig == SIGINT || sig == SIGQUIT;
    char reason[64];
    Text t{reason, 0, sizeof reason};
    t.add(sent_by_launcher ? "terminated by " : "received ");
    t.add(signal_name(sig));
    t.add(runtime().finalized ? " in MPI_Finalize" : " before MPI_Finalize");
    reason[t.n] = '\0';
    finish(reason, !sent_by_launcher);
  }
  errno = saved;
  if (sig > 0 && sig < kMaxSignal && g_installed[sig]) chain(sig, si, uc);
}

void at_exit() {
  Runtime& rt = runtime();
  if (g_state.load() != kArmed || rt.finalized || getpid() != g_pid) return;
  if (g_write) {
    // Normal context: the module map may be refreshed (libraries loaded since MPI_Init).
    try {
      std::vector<uint8_t> fresh = serialise_modules(ModuleMap::current_process());
      if (g_modules) g_modules->swap(fresh);
    } catch (...) {
    }
  }
  finish("exited without calling MPI_Finalize", true);
}

}  // namespace

void crash_arm(const Runtime& rt) {
  g_pid = getpid();
  g_rank = rt.rank;
  g_size = rt.size;
  g_launcher_sigkills = std::getenv("HYDI_CONTROL_FD") != nullptr;  // set by hydra's proxy only
  g_write = rt.opt.crash && !rt.out_dir.empty();
  g_dumped = rt.opt.dump && !rt.out_dir.empty();
  g_cap = rt.opt.mem_cap;
  g_cal = rt.cal_init;
  const TickModel tm = current_tick_model();
  g_skew = tm.inject_skew_ns;
  g_drift = tm.inject_drift;
  Text d{g_dir, 0, sizeof g_dir};
  d.add(rt.out_dir.c_str());
  g_dir[d.n] = '\0';
  Text f{g_file, 0, sizeof g_file};
  f.add(g_dir);
  f.add("/trace.");
  f.num(rt.rank);
  f.add(".cpt");
  g_file[f.n] = '\0';
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  Text m{g_meta, 0, sizeof g_meta};
  m.add("rank=");
  m.num(rt.rank);
  m.add("\nsize=");
  m.num(rt.size);
  m.add("\napp=");
  m.add(rt.app.c_str());
  m.add("\nclock=");
  m.add(g_clock_uses_tsc ? "tsc" : "monotonic_raw");
  m.add("\nthread_level=");
  m.num(rt.thread_level);
  m.add("\nhost=");
  m.add(host);
  m.add("\ncomm_table=unresolved\n");
  g_meta_len = m.n;
  if (g_write) {
    try {
      g_modules = new std::vector<uint8_t>(serialise_modules(ModuleMap::current_process()));
    } catch (...) {
      g_modules = nullptr;
    }
  }
  static bool hooked = false;
  if (!hooked) {
    hooked = true;
    std::atexit(at_exit);
  }
  g_state.store(kArmed);
  if (!rt.opt.crash) return;
  // A stack overflow can only be caught on another stack: give the main thread one unless
  // the application already did.
  stack_t cur;
  if (sigaltstack(nullptr, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    static std::vector<char> alt(64 * 1024);
    stack_t ss;
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
  }
  for (int sig : kSignals) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &g_old[sig]) == 0) g_installed[sig] = true;
  }
}

void crash_on_abort(int errorcode) {
  if (g_state.load() != kArmed) return;
  if (g_write) {
    try {
      std::vector<uint8_t> fresh = serialise_modules(ModuleMap::current_process());
      if (g_modules) g_modules->swap(fresh);
    } catch (...) {
    }
  }
  char reason[64];
  Text t{reason, 0, sizeof reason};
  t.add("called MPI_Abort (error code ");
  t.num(errorcode);
  t.add(")");
  reason[t.n] = '\0';
  finish(reason, true);
}

void crash_trace_consumed() { g_consumed.store(true); }

void crash_disarm() { g_state.store(kDone); }

}  // namespace cpath
