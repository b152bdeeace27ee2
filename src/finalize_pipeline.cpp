#include "finalize_pipeline.h"

#include "phase_times.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "analysis_hooks.h"
#include "clock_alignment.h"
#include "comm_unification.h"
#include "crash_trace.h"
#include "rank_trace.h"
#include "runtime.h"
#include "thread_state.h"
#include "trace_file.h"
#include "trace_store.h"

namespace cpath {

namespace {

OffsetSample g_offset_init;
constexpr int kPingPongs = 10;

TickModel tick_model_now(const Runtime& rt) {
  TickModel m = make_tick_model(rt.cal_init, clock_point());
  if (rt.opt.skew_ns || rt.opt.drift_ppm != 0) {
    // Every other rank goes the other way, so ranks disagree both in offset and in rate.
    const int sign = rt.rank % 2 ? -1 : 1;
    m.inject_skew_ns = rt.opt.skew_ns * rt.rank * sign;
    m.inject_drift = rt.opt.drift_ppm * 1e-6 * sign * (rt.rank ? 1 : 0);
  }
  return m;
}

TickModel injection_only(const Runtime& rt) {
  TickModel m = tick_model_now(rt);
  m.ns0 = rt.cal_init.ns;
  return m;
}

// Collects this rank's recorded streams (spilled chunks first, then those in memory).
struct CollectedStreams {
  std::vector<ThreadStream> streams;
  std::vector<Chunk*> owned;  // chunks read back from the spill file
  ~CollectedStreams() {
    for (Chunk* c : owned) free_chunk(c);
  }
};

void collect_streams(CollectedStreams* out) {
  TraceStore& store = trace_store();
  for (ThreadState* ts : store.threads()) {
    ts->seal();
    ThreadStream s;
    s.thread = ts->index;
    for (Chunk* c : store.read_spilled(ts->index)) {
      out->owned.push_back(c);
      s.spans.emplace_back(c->data(), c->used);
    }
    for (Chunk* c = ts->head; c; c = c->next) s.spans.emplace_back(c->data(), c->used);
    out->streams.push_back(std::move(s));
  }
}

}  // namespace

TickModel current_tick_model() { return tick_model_now(runtime()); }

PhaseTimes& finalize_phases() {
  static PhaseTimes p;
  return p;
}

void finalize_pipeline_at_init() {
  Runtime& rt = runtime();
  g_offset_init = measure_parent_offset(rt.tool_comm, injection_only(rt), kPingPongs);
  sampling_start();
}

void run_finalize_pipeline() {
  Runtime& rt = runtime();
  const int64_t t_start = monotonic_raw_ns();
  PhaseTimes& ph = finalize_phases();
  ph.start();
  sampling_stop();  // the analysis below is libcpath's own time, not the application's
  ph.mark("sampler stop");
  RankTrace t;
  t.rank = rt.rank;
  t.size = rt.size;
  t.ticks = tick_model_now(rt);
  const OffsetSample at_final = measure_parent_offset(rt.tool_comm, injection_only(rt), kPingPongs);
  t.align = compose_alignment(rt.tool_comm, g_offset_init, at_final, &t.align_error_ns);
  ph.mark("clock alignment");

  TraceStore& store = trace_store();
  t.meta = {{"rank", std::to_string(rt.rank)},
            {"size", std::to_string(rt.size)},
            {"app", rt.app},
            {"clock", g_clock_uses_tsc ? "tsc" : "monotonic_raw"},
            {"store_state", store.state() == StoreState::Ok        ? "ok"
                            : store.state() == StoreState::Spilled ? "spilled"
                                                                   : "stopped"},
            {"thread_level", std::to_string(rt.thread_level)}};
  if (!store.spill_failure().empty()) t.meta.emplace_back("spill_failure", store.spill_failure());
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  t.meta.emplace_back("host", host);

  t.comms = comm_registry().snapshot();
  t.comm_table = unify_communicators(t.comms, rt.tool_comm);
  t.modules = ModuleMap::current_process();
  ph.mark("communicator unification");

  CollectedStreams cs;
  collect_streams(&cs);
  for (const ThreadStream& s : cs.streams) {
    DecodedThread d;
    TraceDecoder dec(s.thread);
    for (const auto& sp : s.spans) {
      t.trace_bytes += sp.second;
      if (!dec.decode(sp.first, sp.first + sp.second, &d)) {
        note("rank " + std::to_string(rt.rank) + ": trace decoding failed (" + dec.error() + "); analysis approximates");
        break;
      }
    }
    t.threads.push_back(std::move(d));
  }

  ph.mark("trace decoding");
  const std::string& dir = rt.out_dir;
  if (rt.opt.dump && !dir.empty()) {
    std::string err;
    if (!write_trace_file(dir + "/trace." + std::to_string(rt.rank) + ".cpt", t, cs.streams, &err)) note(err);
  }
  store.release_spill();
  ph.mark("trace dump");
  analyse_and_report(t, dir, t_start);
  crash_disarm();
}

}  // namespace cpath
