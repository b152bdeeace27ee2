// Orchestrates the finalize-time analysis (seed 000 steps 2-5) and the report.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <optional>

#include "analysis_hooks.h"
#include "approximations.h"
#include "call_info.h"
#include "clock_repair.h"
#include "collective_replay.h"
#include "communication.h"
#include "heap_watermark.h"
#include "matches_dump.h"
#include "oversubscription.h"
#include "critical_path_walk.h"
#include "walk_graph.h"
#include "ops.h"
#include "p2p_channels.h"
#include "p2p_replay.h"
#include "pag.h"
#include "placement.h"
#include "phase_times.h"
#include "path_over_time.h"
#include "path_profile.h"
#include "pmu_attribution.h"
#include "regions.h"
#include "report.h"
#include "runtime.h"
#include "send_modes.h"
#include "site_names.h"
#include "startup.h"
#include "timeline.h"
#include "timeline_data.h"
#include "timeline_output.h"
#include "what_if.h"
#include "pop_ideal.h"
#include "wait_states.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

bool write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

// Latest first in `segments` (a vector or PathSegments); the file lists them earliest first.
template <class Segments>
void write_path_file(const std::string& path, const Segments& segments, int rank) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  static const char* kinds[] = {"compute", "mpi", "startup"};
  for (auto it = segments.rbegin(); it != segments.rend(); ++it)
    std::fprintf(f, "%d %s %" PRId64 " %" PRId64 " %u\n", rank, kinds[static_cast<int>(it->kind)], it->begin, it->end,
                 it->event);
  std::fclose(f);
}

// The measured path is kept compact (WalkResult::path); the jumping walk hands it over in
// pieces, so that the 32-byte segments of the whole path never exist at once.
constexpr size_t kMeasuredPathChunk = 1 << 12;

// Appends `from`'s segments to `to` and empties `from`.
void move_to_path(std::vector<Segment>* from, PathSegments* to) {
  for (const Segment& s : *from) to->push_back(s);
  from->clear();
}

// walk=check runs the sequential walk too, writes its segments beside the jumping walk's
// (path_sequential.<rank>.txt, with path=1) and says on stderr where they differ.
WalkResult extract_critical_path(const WalkGraph& g, WalkMode mode, const std::string& path_dir, MPI_Comm comm) {
  if (mode == WalkMode::Sequential) {
    WalkResult w = walk_critical_path_sequential(g, comm);
    move_to_path(&w.segments, &w.path);
    w.segments.shrink_to_fit();
    return w;
  }
  WalkResult w;
  walk_critical_paths_jumping(
      {&g}, comm,
      [&](size_t, WalkResult& part, bool last) {
        move_to_path(&part.segments, &w.path);
        if (!last) return;
        PathSegments path = std::move(w.path);
        w = std::move(part);
        w.path = std::move(path);
        w.path.shrink_to_fit();
      },
      kMeasuredPathChunk);
  if (mode != WalkMode::Check) return w;
  w.segments = w.path.to_vector();
  const WalkResult s = walk_critical_path_sequential(g, comm);
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  if (!path_dir.empty()) write_path_file(path_dir + "/path_sequential." + std::to_string(me) + ".txt", s.segments, me);
  size_t i = 0;
  while (i < w.segments.size() && i < s.segments.size() && w.segments[i].begin == s.segments[i].begin &&
         w.segments[i].end == s.segments[i].end && w.segments[i].event == s.segments[i].event &&
         w.segments[i].kind == s.segments[i].kind && w.segments[i].passed == s.segments[i].passed)
    ++i;
  if (i != w.segments.size() || i != s.segments.size() || w.handoffs != s.handoffs)
    note("rank " + std::to_string(me) + ": walk=check: the jumping walk differs from the sequential walk at segment " +
         std::to_string(i) + " (" + std::to_string(w.segments.size()) + " / " + std::to_string(s.segments.size()) +
         " segments)");
  std::vector<Segment>().swap(w.segments);
  return w;
}

uint64_t release_decoded_events(RankTrace* trace) {
  uint64_t n = 0;
  for (DecodedThread& d : trace->threads) {
    n += d.events.size();
    std::vector<Event>().swap(d.events);
    std::vector<Completion>().swap(d.completions);
    std::vector<uint64_t>().swap(d.reqlists);
  }
  malloc_trim(0);  // give the freed pages back: glibc keeps large freed blocks otherwise
  return n;
}

std::string now_string() {
  char buf[64];
  const time_t t = time(nullptr);
  struct tm tmv;
  localtime_r(&t, &tmv);
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tmv);
  return buf;
}

std::vector<std::string> split_key(const std::string& k) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    const size_t j = k.find('\x1f', i);
    out.push_back(k.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

int64_t meta_int(const RankTrace& t, const char* key, int64_t dflt) {
  const std::string v = t.meta_value(key);
  return v.empty() ? dflt : std::atoll(v.c_str());
}

void fill_clock_report(ClockReport* c, const RankTrace& t, const ClockRepairResult& r, double error_s, double startup_s,
                       double finalize_s) {
  c->hosts = static_cast<int>(meta_int(t, "clock_hosts", 1));
  c->simulated = t.meta_value("clock_simulated") == "1";
  c->alignment = t.meta_value("clock_aligned") == "1" ? "leaders" : c->hosts > 1 ? "disabled" : "none";
  c->error_s = error_s;
  c->startup_s = startup_s;
  c->finalize_s = finalize_s;
  c->lmin_ns = meta_int(t, "clock_lmin_ns", kClockMinLatencyNs);
  c->violations = r.violations;
  c->repaired = r.repaired;
  c->unrepaired = r.unrepaired;
  c->shifted = r.shifted;
  c->max_shift_s = static_cast<double>(r.max_shift_ns) * 1e-9;
  c->rounds = r.rounds;
}

}  // namespace

void analyse_and_report(RankTrace& trace, const std::string& out_dir, int64_t t_start_ns, const MemoryBudget& budget,
                        uint64_t events_recorded) {
  Runtime& rt = runtime();
  MPI_Comm comm = rt.tool_comm;
  const int me = rt.rank, np = rt.size;
  Report rep;
  rep.app = rt.app;
  rep.ranks = np;
  rep.date = now_string();
  rep.top = rt.opt.top;
  rep.memory = {budget.limit, budget.limit_source, budget.events_max, budget.need_max, budget.analyse, budget.whatif_group};
  rep.memory_note = memory_budget_note(budget, out_dir);
  // Every rank the same (the plan is): the replay, walk, wait states, what-if and timeline
  // run only where they fit.
  const bool analyse = rt.opt.analysis && budget.analyse;

  PhaseTimes& ph = finalize_phases();
  HeapWatermark heap(finalize_memory_start());
  Timeline tl = build_timeline_releasing(trace);
  // The timeline holds its own copy of every event and of the completion and request lists;
  // the decoded ones are not read again: their pages went back while they were copied (so the
  // two copies are never resident together, ~120 bytes per event), and the arrays are freed
  // now. Polled-request lists, gaps and region marks stay: they are read through tl.trace
  // (region marks are placed against the timeline's copies of their thread's events).
  const uint64_t decoded_events = release_decoded_events(&trace);
  OpTable ops = build_ops(tl);
  heap.sample();
  tl.release_args();  // handles and raw stamps: the requests are tracked
  tl.keep_poll_lists_only();
  ph.mark("timeline and requests");
  PartnerTable partners(ops.ops.size());
  ReplayStats st;
  WalkResult walk;
  double walk_s = 0;  // this rank's time in the measured path's walk (the what-if's estimate for its own)
  std::vector<TlArrival> arrivals;
  ClockRepairResult clock;
  PathProfile prof;
  SiteNames names;
  names.use_call_paths(&trace.call_paths);
  std::optional<RegionMap> regions;  // user regions on the timeline's (final) clock
  std::vector<uint8_t> coll_complete;  // per collective op: every member recorded it (what-if)
  if (analyse) {
    NumberedOps numbered = number_channels(tl, ops);
    st.thread_channel_order = numbered.thread_races;
    heap.sample();
    std::vector<SenderOp> senders(rt.opt.matches ? ops.ops.size() : 0);
    replay_point_to_point(tl, ops, numbered, comm, &partners, &st, rt.opt.matches ? &senders : nullptr);
    if (rt.opt.matches && !out_dir.empty()) write_matches_file(out_dir + "/matches." + std::to_string(me) + ".txt", ops, senders);
    heap.sample();
    ph.mark("point-to-point replay");
    std::vector<uint8_t> coll_unsync;  // decided on the aligned times, kept through the repair
    std::vector<std::pair<uint32_t, uint32_t>> coll_progress;  // likewise
    replay_collectives(tl, ops, comm, &partners, &st, &coll_complete, &coll_unsync, &coll_progress);
    heap.sample();
    ph.mark("collective replay");
    // Clock conditions (docs/pag-rules.md, "Clocks"): repaired before any edge is drawn.
    clock = repair_clock_conditions(
        tl, ops, RankPag(tl, ops, partners, me), &partners,
        meta_int(trace, "clock_lmin_ns", kClockMinLatencyNs), static_cast<int>(meta_int(trace, "clock_repair_rounds", kClockRepairRounds)),
        comm, [&](bool all) {
          ReplayStats again;
          if (all) {
            partners = PartnerTable(ops.ops.size());
            replay_point_to_point(tl, ops, numbered, comm, &partners, &again);
          }
          replay_collectives(tl, ops, comm, &partners, &again, nullptr, &coll_unsync, &coll_progress);
        });
    numbered = NumberedOps();  // only a repair's replay reads it again
    heap.sample();
    ph.mark("clock-condition repair");
    RankPag pag(tl, ops, partners, me);
    const double walk_t0 = PMPI_Wtime();
    walk = extract_critical_path(PagGraph(pag, tl), rt.opt.walk, rt.opt.path ? out_dir : "", comm);
    walk_s = PMPI_Wtime() - walk_t0;
    if (rt.opt.timeline) arrivals = path_arrivals(walk, pag, me);
    heap.sample();
    ph.mark("critical-path walk");
    if (rt.opt.path && !out_dir.empty()) write_path_file(out_dir + "/path." + std::to_string(me) + ".txt", walk.path, me);
    regions.emplace(tl);  // after the clock repair, which may have moved events
    prof = profile_path(walk, tl, names, me, &*regions);
    ph.mark("path profile (symbolisation)");
    analyse_wait_states(pag, tl, ops, partners, walk, names, prof.compute_ns - prof.startup_ns, comm,
                        rt.opt.path ? out_dir + "/waits." + std::to_string(me) + ".txt" : "", &rep);
    ph.mark("wait states");
  }
  // The replay's temporaries (channel numbering, message tables, exchange buffers) are freed
  // by now, but glibc keeps their pages; the what-if pass would otherwise peak on top of them.
  malloc_trim(0);

  // Counters summed over ranks: trace size, events, and what the analysis had to approximate
  // (one counter per cause, after these).
  enum { kEvents, kBytes, kStopped, kSpilled, kHandoffs, kUnsync, kBeyond, kMerged, kCount };
  const std::vector<unsigned long long> causes =
      approximation_counts(trace, tl, ops, st, walk, rt.opt.analysis, clock.unrepaired);
  std::vector<unsigned long long> causes_all = causes;
  causes_all[static_cast<size_t>(Cause::AnalysisSkippedMemory)] = rt.opt.analysis && !budget.analyse && me == 0;
  std::vector<unsigned long long> mine(kCount + kNumCauses, 0), sum(kCount + kNumCauses, 0);
  mine[kEvents] = budget.analyse ? decoded_events : events_recorded;
  mine[kBytes] = trace.trace_bytes;
  mine[kStopped] = trace.meta_value("store_state") == "stopped";
  mine[kSpilled] = trace.meta_value("store_state") == "spilled";
  mine[kHandoffs] = walk.handoffs;
  mine[kUnsync] = st.collectives_unsynchronised;
  mine[kBeyond] = st.collectives_beyond_pattern;
  for (const DecodedThread& d : trace.threads) mine[kMerged] += merged_polls(d);
  std::copy(causes_all.begin(), causes_all.end(), mine.begin() + kCount);
  tool_reduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
  // Threads that called MPI, per rank (rule 6: each has its own timeline).
  int my_threads = static_cast<int>(tl.threads), most_threads = 0;
  tool_allreduce(&my_threads, &most_threads, 1, MPI_INT, MPI_MAX, comm);
  std::vector<int> threads_per_rank(most_threads > 1 ? static_cast<size_t>(np) : 0);
  if (most_threads > 1) tool_gather(&my_threads, 1, MPI_INT, threads_per_rank.data(), 1, MPI_INT, 0, comm);
  unsigned long long bytes_max = 0;
  tool_reduce(&mine[kBytes], &bytes_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, comm);

  // Critical-path tables.
  std::vector<double> per_rank(static_cast<size_t>(np), 0.0);
  double my_total = prof.total_ns * 1e-9;
  tool_gather(&my_total, 1, MPI_DOUBLE, per_rank.data(), 1, MPI_DOUBLE, 0, comm);
  double parts[4] = {prof.compute_ns, prof.mpi_ns, prof.startup_ns, prof.total_ns}, parts_sum[4] = {};
  tool_reduce(parts, parts_sum, 4, MPI_DOUBLE, MPI_SUM, 0, comm);
  std::vector<double> calls(2 * kNumCalls, 0.0), calls_sum(2 * kNumCalls, 0.0);
  if (!prof.call_ns.empty()) {
    std::copy(prof.call_ns.begin(), prof.call_ns.end(), calls.begin());
    std::copy(prof.call_count.begin(), prof.call_count.end(), calls.begin() + kNumCalls);
  }
  tool_reduce(calls.data(), calls_sum.data(), 2 * kNumCalls, MPI_DOUBLE, MPI_SUM, 0, comm);
  reduce_table_to_root(&prof.sites, comm);
  // The option, not this rank's walk, decides: every rank must take part in the reduction.
  if (rt.opt.stack > 1) reduce_table_to_root(&prof.site_frames, comm);
  // Activity rows are per rank, so the global top N is the top N of the union of each rank's
  // top N: trim before sending.
  {
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [k, v] : prof.activities) rows.emplace_back(v[0], k);
    std::sort(rows.rbegin(), rows.rend());
    StringTable trimmed;
    for (size_t i = 0; i < rows.size() && i < rep.top; ++i) trimmed[rows[i].second] = prof.activities[rows[i].second];
    prof.activities.swap(trimmed);
  }
  reduce_table_to_root(&prof.activities, comm);
  reduce_table_to_root(&prof.path_by_activity, comm);

  // Imbalance of the activities that matter most on the path.
  std::vector<std::string> focus;
  if (me == 0) {
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [k, v] : prof.path_by_activity) rows.emplace_back(v[0], k);
    std::sort(rows.rbegin(), rows.rend());
    for (size_t i = 0; i < rows.size() && i < 3 * rep.top; ++i) focus.push_back(rows[i].second);
  }
  broadcast_strings(&focus, comm);
  if (!regions) regions.emplace(tl);
  std::vector<double> totals = activity_totals(focus, tl, names, &*regions), totals_sum(focus.size(), 0.0);
  if (!focus.empty())
    tool_reduce(totals.data(), totals_sum.data(), static_cast<int>(focus.size()), MPI_DOUBLE, MPI_SUM, 0, comm);

  RegionProfile region_prof = profile_regions(walk, tl, *regions);
  report_regions(region_prof, comm, &rep);
  ph.mark("path tables and imbalance");
  rep.communication = analyse_communication(tl, ops, rep.top, comm);
  heap.sample();
  ph.mark("communication matrices");
  // Nothing reads the ops and their partners after this and the what-if's forward pass: their
  // memory goes back before the new-path walks and the timeline take their own.
  auto release_pag = [&] {
    ops = OpTable();
    partners = PartnerTable();
    std::vector<uint8_t>().swap(coll_complete);
    malloc_trim(0);
  };
  // Hotspots (PMU samples placed on this rank's path segments).
  SampleFunctions sample_fns;
  PmuResult pmu = attribute_samples(walk, tl, trace, rt, comm, &clock, &names,
                                    analyse && rt.opt.whatif_on ? &sample_fns : nullptr);
  // The samples' path intervals (up to 2 per event of a rank the path stays on, 24 bytes each)
  // are freed, but glibc keeps their pages, and the what-if's large tables come from fresh
  // mappings beside them: lu_wavefront peaked 27 bytes per event higher with the sampler on.
  if (rt.opt.sample) malloc_trim(0);
  ph.mark("hotspots");
  if (analyse && rt.opt.whatif_on) {
    WhatIfContext wx;
    wx.tl = &tl;
    wx.ops = &ops;
    wx.partners = &partners;
    wx.coll_complete = &coll_complete;
    wx.walk = &walk;
    wx.walk_s = walk_s;
    wx.clock_unrepaired = clock.unrepaired;
    wx.path_activities = focus;
    wx.names = &names;
    wx.regions = &*regions;
    // Path hotspot functions (rank 0's table) and user targets that may name a function.
    if (me == 0)
      for (const HotspotRow& h : pmu.partial.hot_path_compute) wx.path_functions.push_back(h.function);
    broadcast_strings(&wx.path_functions, comm);
    std::vector<std::string> wanted = wx.path_functions;
    if (wanted.size() > rt.opt.whatif_top) wanted.resize(rt.opt.whatif_top);
    for (const WhatIfItem& u : rt.opt.whatif) wanted.insert(wanted.end(), u.targets.begin(), u.targets.end());
    FunctionShares shares = function_shares(tl, sample_fns.time, sample_fns.fn, sample_fns.names, wanted);
    sample_fns = SampleFunctions();  // read only to make the shares
    wx.functions = &shares;
    wx.user = rt.opt.whatif;
    wx.top = rt.opt.whatif_top;
    wx.stall_s = rt.opt.whatif_stall_s;
    wx.time_s = rt.opt.whatif_time_s;
    wx.defaults = rt.opt.whatif_defaults;
    wx.scenarios_per_pass = budget.whatif_group;
    wx.memory_limit = budget.limit;
    wx.events_max = budget.events_max;
    if (rt.opt.path) wx.dump_path = out_dir + "/whatif." + std::to_string(me) + ".txt";
    wx.release_pag = release_pag;
    wx.release_functions = [&] { shares = FunctionShares(); };
    rep.what_if = analyse_what_if(wx, comm);
    if (me == 0) apply_retimed_ideal(rep.what_if, &rep.waits.efficiency);
    heap.sample();
    ph.mark("what if");
  }
  // Again after the what-if, if it did not run or stopped early; and its trim gives back the
  // what-if's own tables, which the timeline would otherwise be built on top of.
  release_pag();
  rep.placement = analyse_placement(tl, rep.communication, rt.opt.ranks_per_node, comm);
  rep.startup = analyse_startup(trace, tl, prof, rep.placement.hosts, comm);
  {
    const Oversubscription over = detect_oversubscription(rep.placement.hosts, comm);
    rep.oversubscribed = over.oversubscribed;
    rep.oversubscription = over.line;
  }
  if (!budget.analyse) {
    // Not replayed (memory plan): their figures would be zeros that read as measurements
    // (0 pairs, a start-up that is the whole run) and their files are not written. The
    // text says so; report.json leaves them out (analysis.memory_budget.analysed false).
    rep.communication.present = false;
    rep.startup.present = false;
    rep.placement.present = false;
  }
  ph.mark("start-up and placement");
  // The path's composition over time, and the timeline (every rank writes its own part).
  constexpr int kOverTimeBins = 100;
  std::vector<double> over_time = path_time_bins(walk, walk.job_begin, walk.finalize_begin, kOverTimeBins);
  std::vector<double> over_time_sum(over_time.size(), 0.0);
  tool_reduce(over_time.data(), over_time_sum.data(), static_cast<int>(over_time.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  TimelineSummary timeline;
  if (rt.opt.timeline && analyse && !out_dir.empty()) {
    // Empties walk.path (the part holds the path now); only walk's times are read after.
    TimelinePart part = build_timeline_part(tl, walk, std::move(arrivals), names, me);
    heap.sample();
    ph.mark("timeline data");
    timeline = write_timeline(part, out_dir, rt.opt.timeline_max, rt.opt.timeline_mpiio, rt.app, walk.job_begin,
                              walk.finalize_begin - walk.job_begin, comm);
    ph.mark("timeline write");
  } else if (rt.opt.timeline) {
    timeline.note = budget.analyse ? "no timeline: it needs the critical-path analysis (option analysis=1)"
                                   : "no timeline: the critical-path analysis was skipped for memory (see above)";
  }

  double post = static_cast<double>(monotonic_raw_ns() - t_start_ns) * 1e-9, post_max = 0;
  tool_reduce(&post, &post_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  std::vector<double> phase_s, phase_max;
  for (const auto& p : ph.phases()) phase_s.push_back(p.second);
  for (size_t b : ph.memory()) phase_s.push_back(static_cast<double>(b));  // all three: the largest rank's
  for (double c : ph.cpu()) phase_s.push_back(c);
  // What the plan governs: growth after it was made (MPI's communicator set-up before it is
  // not the analysis's).
  phase_s.push_back(static_cast<double>(ph.growth_after(kMemoryPlanPhase)));
  phase_max.resize(phase_s.size());
  tool_reduce(phase_s.data(), phase_max.data(), static_cast<int>(phase_s.size()), MPI_DOUBLE, MPI_MAX, 0, comm);
  heap.sample();
  // Resident growth and heap in use, largest rank each.
  unsigned long long mem[2] = {heap.growth(), heap.heap_growth()}, mem_max[2] = {0, 0};
  tool_reduce(mem, mem_max, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, comm);
  double clk[3] = {trace.align_error_ns * 1e-9, static_cast<double>(meta_int(trace, "clock_startup_ns", 0)) * 1e-9,
                   static_cast<double>(meta_int(trace, "clock_finalize_ns", 0)) * 1e-9},
         clk_max[3] = {0, 0, 0};
  tool_reduce(clk, clk_max, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
  const double err_max = clk_max[0];
  if (me != 0) return;

  rep.elapsed_s = static_cast<double>(walk.finalize_begin - walk.job_begin) * 1e-9;
  rep.cp_compute_s = parts_sum[0] * 1e-9;
  rep.cp_mpi_s = parts_sum[1] * 1e-9;
  rep.cp_startup_s = parts_sum[2] * 1e-9;
  rep.cp_length_s = parts_sum[3] * 1e-9;
  rep.cp_span_s = rep.elapsed_s;
  rep.per_rank_s = per_rank;
  rep.handoffs = sum[kHandoffs];
  rep.start_rank = walk.start_rank;
  for (unsigned c = 1; c < kNumCalls; ++c)
    if (calls_sum[kNumCalls + c] > 0)
      rep.by_call.push_back({kCallInfo[c].name, calls_sum[c] * 1e-9, static_cast<uint64_t>(calls_sum[kNumCalls + c])});
  std::sort(rep.by_call.begin(), rep.by_call.end(), [](const CallRow& a, const CallRow& b) { return a.time_s > b.time_s; });
  for (const auto& [k, v] : prof.sites) rep.by_site.push_back({k, v[0] * 1e-9, static_cast<uint64_t>(v[1]), {}});
  std::sort(rep.by_site.begin(), rep.by_site.end(), [](const SiteRow& a, const SiteRow& b) { return a.time_s > b.time_s; });
  if (rep.by_site.size() > rep.top) rep.by_site.resize(rep.top);
  if (!prof.site_frames.empty()) {
    std::map<std::string, std::string> frames_of;
    for (const auto& kv : prof.site_frames) {
      const size_t cut = kv.first.find('\x1d');
      if (cut != std::string::npos) frames_of.emplace(kv.first.substr(0, cut), kv.first.substr(cut + 1));
    }
    for (SiteRow& row : rep.by_site) {
      auto it = frames_of.find(row.callsite);
      if (it == frames_of.end()) continue;
      for (const SiteFrame& f : decode_site_frames(it->second)) row.call_path.push_back({f.function, f.file, f.line});
    }
  }
  std::map<std::string, double> imbalance_of;
  for (size_t i = 0; i < focus.size(); ++i) {
    const double path = prof.path_by_activity[focus[i]][0] * 1e-9;
    const double mean = totals_sum[i] * 1e-9 / np;
    const double imb = std::max(0.0, path - mean);
    imbalance_of[focus[i]] = imb;
    if (imb > 0) rep.imbalance.push_back({focus[i], path, mean, imb});
  }
  std::sort(rep.imbalance.begin(), rep.imbalance.end(),
            [](const ImbalanceRow& a, const ImbalanceRow& b) { return a.imbalance_s > b.imbalance_s; });
  if (rep.imbalance.size() > rep.top) rep.imbalance.resize(rep.top);
  for (const auto& [k, v] : prof.activities) {
    std::vector<std::string> parts_k = split_key(k);
    if (parts_k.size() < 3) continue;
    ActivityRow a;
    a.rank = std::atoi(parts_k[0].c_str());
    a.kind = parts_k[1];
    a.key = parts_k[2];
    a.description = a.key + " on rank " + parts_k[0];
    a.time_s = v[0] * 1e-9;
    a.count = static_cast<uint64_t>(v[1]);
    auto it = imbalance_of.find(a.key);
    if (it != imbalance_of.end()) {
      a.activity_imbalance_s = it->second;
      const double path = prof.path_by_activity[a.key].empty() ? 0 : prof.path_by_activity[a.key][0] * 1e-9;
      a.imbalance_s = path > 0 ? it->second * std::min(1.0, a.time_s / path) : 0;
    }
    rep.activities.push_back(a);
  }
  std::sort(rep.activities.begin(), rep.activities.end(),
            [](const ActivityRow& a, const ActivityRow& b) { return a.time_s > b.time_s; });
  if (rep.activities.size() > rep.top) rep.activities.resize(rep.top);

  if (walk.finalize_begin > walk.job_begin) {
    rep.path_over_time.bin_s = rep.elapsed_s / kOverTimeBins;
    rep.path_over_time.compute_s.assign(over_time_sum.begin(), over_time_sum.begin() + kOverTimeBins);
    rep.path_over_time.mpi_s.assign(over_time_sum.begin() + kOverTimeBins, over_time_sum.begin() + 2 * kOverTimeBins);
    rep.path_over_time.startup_s.assign(over_time_sum.begin() + 2 * kOverTimeBins, over_time_sum.end());
  }
  rep.timeline = timeline;
  rep.postprocess_s = post_max;
  const size_t nph = ph.phases().size();
  for (size_t i = 0; i < nph; ++i) {
    rep.phases.emplace_back(ph.phases()[i].first, phase_max[i]);
    rep.phase_memory.emplace_back(ph.phases()[i].first, static_cast<uint64_t>(phase_max[nph + i]));
    rep.phase_cpu.emplace_back(ph.phases()[i].first, phase_max[2 * nph + i]);
  }
  rep.memory.used_bytes = static_cast<uint64_t>(phase_max[3 * nph]);
  rep.analysis_memory_max = mem_max[0];
  rep.analysis_heap_max = mem_max[1];
  rep.clock_error_s = err_max;
  rep.events_total = sum[kEvents];
  rep.polls_merged = sum[kMerged];
  rep.trace_bytes_total = sum[kBytes];
  rep.trace_bytes_max = bytes_max;
  rep.store_state = sum[kStopped] ? "stopped" : sum[kSpilled] ? "spilled" : "ok";
  // Known only after the what-if (rank 0's report): a cycle means instances were paired wrongly.
  if (rep.what_if.stalled) sum[kCount + static_cast<size_t>(Cause::DependencyCycle)] = 1;
  fill_approximations(sum.data() + kCount, &rep);
  fill_clock_report(&rep.clock, trace, clock, err_max, clk_max[1], clk_max[2]);
  rep.clock.unsynchronised = sum[kUnsync];
  rep.clock.beyond_pattern = sum[kBeyond];
  const EagerLimits eager = eager_limits_of(trace);
  rep.eager_limit_intra = eager.intra;
  rep.eager_limit_inter = eager.inter;
  rep.eager_inline_intra = eager.inline_intra;
  rep.eager_inline_inter = eager.inline_inter;
  rep.eager_limit_source = eager.source;
  rep.threads_per_rank = threads_per_rank;
  pmu.fill(&rep);
  rep.out_dir = out_dir;

  const std::string text = report_text(rep);
  if (rt.opt.report) {
    FILE* to = rt.opt.report_stderr ? stderr : stdout;
    std::fwrite(text.data(), 1, text.size(), to);
    std::fflush(to);
  }
  const std::string json = report_json(rep);
  if (out_dir.empty()) {
    note("no report directory: report.json, report.txt and report.html not written");
  } else {
    if (!write_file(out_dir + "/report.json", json) || !write_file(out_dir + "/report.txt", text) ||
        !write_file(out_dir + "/report.html", report_html(json)))
      note("could not write the report into " + out_dir);
    else if (rt.opt.verbose)
      info("report written to " + out_dir + "/report.json");
    std::vector<std::string> failed;
    // Skipped for memory, the matrices and start-up rows were never computed: no zeros on disk.
    if (budget.analyse) write_communication_files(rep, out_dir, &failed);
    for (const std::string& f : failed) note("could not write " + out_dir + "/" + f);
  }
}

}  // namespace cpath
