#include "finalize_pipeline.h"

#include "phase_times.h"
#include "process_memory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "analysis_hooks.h"
#include "call_path.h"
#include "clock_alignment.h"
#include "comm_unification.h"
#include "crash_trace.h"
#include "eager_limit.h"
#include "memory_budget.h"
#include "rank_trace.h"
#include "record_writer.h"
#include "runtime.h"
#include "thread_state.h"
#include "trace_file.h"
#include "trace_store.h"

namespace cpath {

namespace {

OffsetSample g_offset_init;
ClockDomain g_domain;
int64_t g_clock_startup_ns = 0;
constexpr int kPingPongs = 10;

// The simulated host of this rank (tests), or -1 for its real host: sim_hosts=N puts rank r
// on host r mod N; a clock distortion without sim_hosts gives every rank a clock, and so a
// host, of its own.
int sim_index(const Runtime& rt) {
  if (rt.opt.sim_hosts > 0) return rt.rank % rt.opt.sim_hosts;
  if (rt.opt.skew_ns || rt.opt.drift_ppm != 0) return rt.rank;
  return -1;
}

// The test distortion (skew_ns, drift_ppm) of simulated host h: offset h x skew and the drift,
// every other host the other way (host 0 undistorted), drift counted from a time common to
// all ranks, so that the ranks of one simulated host read one distorted clock.
TickModel injection(const Runtime& rt) {
  TickModel m;
  m.ns0 = rt.cal_init.ns;
  const int h = sim_index(rt);
  if (h < 0 || (!rt.opt.skew_ns && rt.opt.drift_ppm == 0)) return m;
  const int sign = h % 2 ? -1 : 1;
  m.inject_drift = rt.opt.drift_ppm * 1e-6 * sign * (h ? 1 : 0);
  m.inject_skew_ns = rt.opt.skew_ns * h * sign +
                     std::llround(static_cast<double>(m.ns0 - rt.inject_base_ns) * m.inject_drift);
  return m;
}

TickModel tick_model_now(const Runtime& rt) {
  TickModel m = make_tick_model(rt.cal_init, clock_point());
  const TickModel i = injection(rt);
  m.inject_skew_ns = i.inject_skew_ns;
  m.inject_drift = i.inject_drift;
  return m;
}

// Collects this rank's recorded streams (spilled chunks first, then those in memory).
struct CollectedStreams {
  std::vector<ThreadStream> streams;
  std::vector<ThreadState*> of_stream;  // the thread each stream is of
  // Per stream, the chunks read back from the spill file: its first spans, owned here.
  std::vector<std::vector<Chunk*>> spilled;
  ~CollectedStreams() {
    for (const auto& v : spilled)
      for (Chunk* c : v) free_chunk(c);
  }
};

void collect_streams(CollectedStreams* out) {
  TraceStore& store = trace_store();
  for (ThreadState* ts : store.threads()) {
    // A thread whose last calls were unsuccessful polls (a progress thread, a thread that
    // polled and exited) still holds their merged run: only its next record would have
    // written it. Every record leaves room for it (RecordWriter's reservation).
    if (!ts->busy && ts->poll_repeats != 0 && store.state() != StoreState::Stopped &&
        static_cast<size_t>(ts->end - ts->pos) >= kRepeatRoom)
      end_poll_run(ts);
    ts->seal();
    ThreadStream s;
    s.thread = ts->index;
    s.os_tid = ts->os_tid;
    // Records written after the store stopped went to the discard sink but were counted.
    if (store.state() != StoreState::Stopped) s.events = ts->events;
    out->spilled.push_back(store.read_spilled(ts->index));
    for (Chunk* c : out->spilled.back()) s.spans.emplace_back(c->data(), c->used);
    for (Chunk* c = ts->head; c; c = c->next) s.spans.emplace_back(c->data(), c->used);
    out->streams.push_back(std::move(s));
    out->of_stream.push_back(ts);
  }
}

}  // namespace

TickModel current_tick_model() { return tick_model_now(runtime()); }

PhaseTimes& finalize_phases() {
  static PhaseTimes p;
  return p;
}

ProcessMemory& finalize_memory_start() {
  static ProcessMemory m;
  return m;
}

void finalize_pipeline_at_init() {
  Runtime& rt = runtime();
  const int64_t t0 = monotonic_raw_ns();
  g_domain = local_clock_domain(g_clock_uses_tsc ? "tsc" : "monotonic_raw", sim_index(rt));
  if (rt.opt.align) g_offset_init = measure_parent_offset(rt.tool_comm, injection(rt), kPingPongs, g_domain.id);
  g_clock_startup_ns = monotonic_raw_ns() - t0;
  sampling_start();
}

void run_finalize_pipeline() {
  Runtime& rt = runtime();
  const int64_t t_start = monotonic_raw_ns();
  finalize_memory_start() = read_process_memory();
  PhaseTimes& ph = finalize_phases();
  ph.start();
  sampling_stop();  // the analysis below is libcpath's own time, not the application's
  ph.mark("sampler stop");
  RankTrace t;
  t.rank = rt.rank;
  t.size = rt.size;
  t.ticks = tick_model_now(rt);
  const ClockAlignment ca = align_clocks(rt.tool_comm, injection(rt), g_offset_init, g_domain, rt.opt.align, kPingPongs);
  t.align = ca.model;
  t.align_error_ns = ca.error_ns;
  ph.mark("clock alignment");

  TraceStore& store = trace_store();
  t.meta = {{"rank", std::to_string(rt.rank)},
            {"size", std::to_string(rt.size)},
            {"app", rt.app},
            {"clock", g_clock_uses_tsc ? "tsc" : "monotonic_raw"},
            {"store_state", store.state() == StoreState::Ok        ? "ok"
                            : store.state() == StoreState::Spilled ? "spilled"
                                                                   : "stopped"},
            {"thread_level", std::to_string(rt.thread_level)},
            {"preinit_ns", std::to_string(rt.preinit_ns)},
            {"init_tool_ns", std::to_string(rt.init_tool_ns)},
            {"analysis_start_ns", std::to_string(t_start)}};
  if (!store.spill_failure().empty()) t.meta.emplace_back("spill_failure", store.spill_failure());
  {
    // Threads created after MPI_Init: "index:creator:ticks" (rule 1 links a thread's first call
    // to its creator's calls before its birth).
    std::string births;
    for (const ThreadState* ts : store.threads())
      if (ts->birth_creator != -2)
        births += (births.empty() ? "" : ";") + std::to_string(ts->index) + ":" + std::to_string(ts->birth_creator) + ":" +
                  std::to_string(ts->birth_ticks);
    if (!births.empty()) t.meta.emplace_back("thread_births", births);
  }
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  t.meta.emplace_back("host", host);
  // The clock model both analyses use (docs/pag-rules.md, "Clocks").
  t.meta.emplace_back("clock_host", g_domain.host);
  t.meta.emplace_back("clock_simulated", g_domain.simulated ? "1" : "0");
  t.meta.emplace_back("clock_leader", std::to_string(ca.leader));
  t.meta.emplace_back("clock_hosts", std::to_string(ca.hosts));
  t.meta.emplace_back("clock_aligned", ca.applied ? "1" : rt.opt.align ? "0" : "disabled");
  t.meta.emplace_back("clock_lmin_ns", std::to_string(kClockMinLatencyNs));
  t.meta.emplace_back("clock_repair_rounds", std::to_string(kClockRepairRounds));
  t.meta.emplace_back("clock_startup_ns", std::to_string(g_clock_startup_ns));
  t.meta.emplace_back("clock_finalize_ns", std::to_string(ca.cost_ns));
  const EagerLimits eager = agree_eager_limits(rt.opt, rt.tool_comm);
  t.meta.emplace_back("eager_limit_intra", std::to_string(eager.intra));
  t.meta.emplace_back("eager_limit_inter", std::to_string(eager.inter));
  t.meta.emplace_back("eager_inline_intra", std::to_string(eager.inline_intra));
  t.meta.emplace_back("eager_inline_inter", std::to_string(eager.inline_inter));
  t.meta.emplace_back("eager_limit_source", eager.source);

  t.comms = comm_registry().snapshot();
  t.comm_table = unify_communicators(t.comms, rt.tool_comm);
  t.topologies = topology_snapshot();
  t.modules = ModuleMap::current_process();
  t.call_paths = call_path_snapshot();
  if (const uint64_t lost = call_paths_overflowed())
    note("rank " + std::to_string(rt.rank) + ": " + std::to_string(lost) +
         " MPI calls met a full call-path table; they are reported as \"(call path not recorded)\"");
  ph.mark("communicator unification");

  CollectedStreams cs;
  collect_streams(&cs);
  // What the analysis may do within the memory this rank can have, decided before decoding
  // (docs/options.md, analysis_mem=). After the store stopped, some counted records were
  // discarded: the bytes bound the count (no record is shorter than 2 bytes).
  uint64_t my_events = 0;
  for (const ThreadStream& s : cs.streams) {
    uint64_t bytes = 0;
    for (const auto& sp : s.spans) bytes += sp.second;
    my_events += s.events ? s.events : bytes / 2;
  }
  const uint64_t fixed = analysis_fixed_bytes(rt.opt.timeline && !rt.out_dir.empty(), rt.opt.sample);
  const MemoryBudget budget = plan_memory(my_events, rt.opt.analysis_mem, fixed, rt.tool_comm);
  ph.mark(kMemoryPlanPhase);
  // Without a dump the recorded chunks are not read again once decoded: each goes back as soon
  // as the decoder is past it (the thread's last, which it may still write into, with the
  // rest below), so the recorded trace (16-20 bytes per event) is not held on top of the
  // decoded one (120) at the decoding's peak. A crash from here on cannot write them.
  const bool free_decoded = budget.analyse && !rt.opt.dump;
  if (free_decoded) crash_trace_consumed();
  for (size_t k = 0; k < cs.streams.size(); ++k) {
    const ThreadStream& s = cs.streams[k];
    DecodedThread d;
    t.os_tids.push_back(s.os_tid);
    if (!budget.analyse) {
      for (const auto& sp : s.spans) t.trace_bytes += sp.second;
      t.threads.push_back(std::move(d));
      continue;
    }
    // Sized once: grown by doubling, the decoded events peaked at up to twice their size.
    d.events.reserve(s.events);
    TraceDecoder dec(s.thread);
    for (size_t j = 0; j < s.spans.size(); ++j) {
      const auto& sp = s.spans[j];
      t.trace_bytes += sp.second;
      if (!dec.decode(sp.first, sp.first + sp.second, &d)) {
        note("rank " + std::to_string(rt.rank) + ": trace decoding failed (" + dec.error() + "); analysis approximates");
        break;
      }
      if (!free_decoded) continue;
      std::vector<Chunk*>& spilled = cs.spilled[k];
      if (j < spilled.size()) {
        free_chunk(spilled[j]);
        spilled[j] = nullptr;
      } else {
        store.release_first_chunk(cs.of_stream[k]);
      }
    }
    t.threads.push_back(std::move(d));
  }

  ph.mark("trace decoding");
  const std::string& dir = rt.out_dir;
  // Without the analysis the trace is the result: written for cpath-ref whatever dump= says.
  if ((rt.opt.dump || !budget.analyse) && !dir.empty()) {
    std::string err;
    if (!write_trace_file(dir + "/trace." + std::to_string(rt.rank) + ".cpt", t, cs.streams, &err)) note(err);
    ph.mark("trace dump");  // the same list on every rank: dump= and the plan are
  }
  store.release_spill();
  // Decoded (and written, if asked), the recorded bytes are not read again: 16-20 bytes per
  // event that would otherwise stay through the analysis's peak. A crash from here on cannot
  // write them; it says so (crash_trace_consumed).
  if (budget.analyse) {
    crash_trace_consumed();
    store.release_chunks();
    for (const auto& v : cs.spilled)
      for (Chunk* c : v) free_chunk(c);
    cs.spilled.clear();
    cs.streams.clear();
  }
  ph.mark("spill release");
  analyse_and_report(t, dir, t_start, budget, my_events);
  crash_disarm();
}

}  // namespace cpath
