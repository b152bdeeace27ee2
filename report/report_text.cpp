#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "report.h"
#include "text_format.h"

namespace cpath {

namespace {

void hot_table(std::string& o, const char* title, const std::vector<HotspotRow>& rows, bool has_instr) {
  o += fmt("\n--- %s\n", title);
  if (rows.empty()) {
    o += "(no samples)\n";
    return;
  }
  o += fmt("%-40s %-24s %12s %16s %8s\n", "Function", "Module", "CPU Time(s)", "Instructions", "CPI");
  for (const HotspotRow& h : rows) {
    // Head and tail: long names that differ only at the end (Fortran module procedures) must
    // not print as the same row.
    std::string f = h.function.size() > 40 ? h.function.substr(0, 18) + "..." + h.function.substr(h.function.size() - 19) : h.function;
    std::string m = h.module.size() > 24 ? h.module.substr(0, 21) + "..." : h.module;
    const std::string ins = has_instr && h.instructions ? fmt("%.0f", *h.instructions) : "n/a";
    const std::string cpi = has_instr && h.cpi ? fmt("%.3f", *h.cpi) : "n/a";
    o += fmt("%-40s %-24s %12.4f %16s %8s\n", f.c_str(), m.c_str(), h.cpu_s, ins.c_str(), cpi.c_str());
  }
}

void append_approximations(std::string& o, const Report& r) {
  if (r.approximations.empty()) return;
  o += "\n--- Approximations\n";
  for (const ApproximationRow& a : r.approximations)
    o += fmt("- %llu %s [%s]\n", static_cast<unsigned long long>(a.count), a.text.c_str(), a.cause.c_str());
}

}  // namespace

std::string report_text(const Report& r) {
  std::string o;
  o += fmt("==== libcpath report: %s, %d ranks, %s\n", r.app.c_str(), r.ranks, r.date.c_str());
  // Skipped for memory: every table below comes from the replay, and zeros would read as
  // measurements (0 messages, a 0 s path); say what is missing and where to get it instead.
  const bool skipped = !r.memory.analysed;
  if (skipped) {
    o += "Elapsed and critical path: not measured, the trace was not replayed (below)\n";
  } else {
    o += fmt("Elapsed (first MPI_Init entry to last MPI_Finalize entry): %.6f s\n", r.elapsed_s);
    o += fmt("Critical path: %.6f s = compute %.6f s (%.1f%%) + MPI %.6f s (%.1f%%)", r.cp_length_s, r.cp_compute_s,
             pct(r.cp_compute_s, r.cp_length_s), r.cp_mpi_s, pct(r.cp_mpi_s, r.cp_length_s));
    if (r.cp_startup_s > 0) o += fmt(" [compute includes %.6f s of start-up before MPI_Init]", r.cp_startup_s);
    o += fmt("\n               ends on rank %d, changes rank %llu times\n", r.start_rank,
             static_cast<unsigned long long>(r.handoffs));
  }
  const std::string share = skipped ? "" : fmt(" (%.2f%% of elapsed)", pct(r.postprocess_s, r.elapsed_s));
  // Growth of resident memory: an analysis that fit in pages the application had freed (and
  // glibc kept) added none, which "0 B per rank" would hide behind a figure that looks broken.
  // Where it fit in pages the application had freed, the heap it used says how much it needed.
  const std::string memory =
      r.analysis_memory_max ? size_str(r.analysis_memory_max) + " more memory per rank"
      : r.analysis_heap_max ? "no memory beyond the application's own (its heap between steps reached " +
                                  size_str(r.analysis_heap_max) + " per rank, in pages the process already had)"
                            : std::string("no memory beyond the application's own");
  o += fmt("Analysis: %.3f s in MPI_Finalize%s, %s; clock alignment error <= %.1f us; %s\n", r.postprocess_s,
           share.c_str(), memory.c_str(), r.clock_error_s * 1e6,
           r.exact ? "exact" : "APPROXIMATED (see below)");
  if (!r.memory_note.empty()) o += r.memory_note + "\n";
  {
    const ClockReport& c = r.clock;
    std::string how = c.alignment == "leaders"    ? fmt("aligned through their leaders (error <= %.1f us)", c.error_s * 1e6)
                      : c.alignment == "disabled" ? std::string("not aligned (option align=0)")
                                                  : std::string("one clock, no alignment");
    o += fmt("Clocks: %d %shost%s, %s; %llu clock-condition violation%s", c.hosts, c.simulated ? "simulated " : "",
             c.hosts == 1 ? "" : "s", how.c_str(), static_cast<unsigned long long>(c.violations), c.violations == 1 ? "" : "s");
    if (c.violations || c.shifted)
      o += fmt(", %llu repaired (largest shift %.1f us)", static_cast<unsigned long long>(c.repaired), c.max_shift_s * 1e6);
    if (c.unrepaired) o += fmt(", %llu left", static_cast<unsigned long long>(c.unrepaired));
    o += "\n";
    if (c.unsynchronised)
      o += fmt("Collectives not synchronised by MPI: %llu call%s ended before a member %s modelled to wait for began "
               "(beyond the clocks' error): %s waited only for the members that came before\n",
               static_cast<unsigned long long>(c.unsynchronised), c.unsynchronised == 1 ? "" : "s",
               c.unsynchronised == 1 ? "it is" : "they are", c.unsynchronised == 1 ? "it" : "they");
    if (c.beyond_pattern)
      o += fmt("Collectives synchronised beyond their pattern: %llu rooted, scan or neighbourhood call%s waited for a "
               "member the pattern does not wait for (the MPI's algorithm: a rendezvous transfer, a tree, recursive "
               "doubling): see Wait in Collective\n",
               static_cast<unsigned long long>(c.beyond_pattern), c.beyond_pattern == 1 ? "" : "s");
  }
  const std::string merged =
      r.polls_merged ? fmt(" (and %llu unsuccessful polls merged into the records they repeat)",
                           static_cast<unsigned long long>(r.polls_merged))
                     : std::string();
  o += fmt("Trace: %llu events%s, %s max per rank (%.1f bytes/event)%s\n",
           static_cast<unsigned long long>(r.events_total), merged.c_str(), size_str(r.trace_bytes_max).c_str(),
           r.events_total ? double(r.trace_bytes_total) / double(r.events_total) : 0.0,
           r.store_state == "ok" ? "" : (", memory cap reached: " + r.store_state).c_str());

  if (!r.threads_per_rank.empty()) {
    int multi = 0, most = 0;
    for (int n : r.threads_per_rank) {
      multi += n > 1;
      most = std::max(most, n);
    }
    // A thread waiting for another outside MPI (pthread_join, a lock, a condition variable)
    // leaves no record: the path sees that wait as the waiting thread's compute, and a main
    // thread that only joins its MPI workers takes the whole run as compute (osu_latency_mt).
    o += fmt("Threads: MPI called from several threads on %d of %zu ranks (up to %d per rank); each thread has its own "
             "timeline, and a thread's waits for another outside MPI (pthread_join, locks) count as its compute\n",
             multi, r.threads_per_rank.size(), most);
  }
  if (!r.oversubscription.empty()) o += r.oversubscription + "\n";
  if (!r.eager_limit_source.empty())
    o += fmt("Send modes: eager limit %s within a host, %s between hosts (%s)\n", size_str(r.eager_limit_intra).c_str(),
             size_str(r.eager_limit_inter).c_str(), r.eager_limit_source.c_str());
  // Said because it changes whose time a blocked MPI_Send is (docs/pag-rules.md rule 3).
  if (!r.eager_limit_source.empty() && r.eager_inline_intra < r.eager_limit_intra)
    o += fmt("  standard sends of %s-%s within a host may wait for the receiver to take them (the MPI hands them over "
             "only then)\n",
             size_str(r.eager_inline_intra + 1).c_str(), size_str(r.eager_limit_intra).c_str());
  if (skipped) {
    o += "\nNot in this report, for want of the replay: the critical path and its tables, hotspots, wait states, "
         "communication, what-if, start-up and placement. cpath-ref on the traces gives the critical path and its tables.\n";
    append_approximations(o, r);
    if (!r.out_dir.empty()) o += "\nFiles: " + r.out_dir + " (report.json, report.txt, trace.<rank>.cpt)\n";
    o += "==== end of libcpath report\n";
    return o;
  }

  o += "\n--- Critical path by rank (where to look first)\n";
  o += fmt("%6s %12s %8s\n", "Rank", "On path(s)", "Share");
  {
    // Small jobs: every rank in order. Large ones: the ranks the path spends most time on.
    std::vector<size_t> order(r.per_rank_s.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const size_t shown = order.size() <= 16 ? order.size() : std::max<size_t>(16, r.top);
    if (order.size() > shown)
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return r.per_rank_s[a] > r.per_rank_s[b]; });
    for (size_t k = 0; k < order.size() && k < shown; ++k)
      o += fmt("%6zu %12.6f %7.1f%%\n", order[k], r.per_rank_s[order[k]], pct(r.per_rank_s[order[k]], r.cp_length_s));
    if (order.size() > shown) {
      size_t on_path = 0;
      for (double t : r.per_rank_s) on_path += t > 0;
      o += fmt("(%zu of %zu ranks carry the path; the %zu with most time are shown, all are in report.json)\n", on_path,
               order.size(), shown);
    }
  }

  o += "\n--- Critical path: top activities (speeding these up shortens the run; Imbal: this row's share of the "
       "activity's imbalance)\n";
  o += fmt("%3s %11s %7s %11s %5s  %s\n", "#", "Time(s)", "Share", "Imbal(s)", "Rank", "Activity");
  for (size_t i = 0; i < r.activities.size(); ++i) {
    const ActivityRow& a = r.activities[i];
    o += fmt("%3zu %11.6f %6.1f%% %11.6f %5d  %s (x%llu)\n", i + 1, a.time_s, pct(a.time_s, r.cp_length_s), a.imbalance_s,
             a.rank, a.description.c_str(), static_cast<unsigned long long>(a.count));
  }

  o += "\n--- Critical path by MPI call\n";
  o += fmt("%-28s %12s %10s %7s\n", "Call", "Time(s)", "Count", "Share");
  for (const CallRow& c : r.by_call)
    o += fmt("%-28s %12.6f %10llu %6.1f%%\n", c.call.c_str(), c.time_s, static_cast<unsigned long long>(c.count),
             pct(c.time_s, r.cp_length_s));

  o += "\n--- Critical path by MPI call site\n";
  // As wide as the longest site (a library's function and file name run past 48 columns), so
  // that the numbers stay in their columns.
  int site_w = 48;
  for (const SiteRow& s : r.by_site) site_w = std::max(site_w, static_cast<int>(std::min<size_t>(s.callsite.size(), 120)));
  o += fmt("%-*s %12s %10s\n", site_w, "Call site", "Time(s)", "Count");
  for (const SiteRow& s : r.by_site)
    o += fmt("%-*s %12.6f %10llu\n", site_w, s.callsite.c_str(), s.time_s, static_cast<unsigned long long>(s.count));

  if (!r.imbalance.empty()) {
    o += "\n--- Critical-path imbalance (path time minus mean time per rank of the same activity)\n";
    o += fmt("%11s %11s %11s  %s\n", "Imbal(s)", "Path(s)", "Mean(s)", "Activity");
    for (const ImbalanceRow& m : r.imbalance)
      o += fmt("%11.6f %11.6f %11.6f  %s\n", m.imbalance_s, m.path_s, m.mean_s, m.activity.c_str());
  }

  append_region_text(o, r);

  if (r.pmu_enabled) {
    std::string rate = r.pmu_freq_hz ? fmt("%u Hz of CPU time per thread", r.pmu_freq_hz)
                                      : fmt("every %llu events", static_cast<unsigned long long>(r.pmu_period));
    if (r.pmu_effective_hz > 0) rate += fmt(", %.0f Hz taken: CPU timers fire at the kernel's tick", r.pmu_effective_hz);
    o += fmt("\n--- PMU: %s events (%s, %s), %llu samples, %llu lost\n", r.pmu_source.c_str(), r.pmu_events.c_str(),
             rate.c_str(), static_cast<unsigned long long>(r.pmu_samples), static_cast<unsigned long long>(r.pmu_lost));
    if (!r.pmu_note.empty()) o += "Note: " + r.pmu_note + "\n";
    if (r.pmu_functions_approximate())
      o += fmt("Note: function times are approximate. The sampled threads ran on %.0f %% of a CPU between samples "
               "(least on a rank: %.0f %%), and CPU-time timers fire at the kernel's tick, so a thread that is "
               "descheduled is sampled where its slices end: computation just before an MPI call that waits is "
               "partly counted inside the call. sampler=perf samples at the exact CPU time (it costs more per "
               "context switch).\n",
               100 * r.pmu_cpu_share, 100 * r.pmu_cpu_share_min);
    if (r.pmu_unsampled_threads) {
      // Two causes, told apart by the thread's signal mask (pmu/timer_sampler.h, unsampled).
      const uint32_t n = r.pmu_unsampled_threads, b = r.pmu_unsampled_blocked;
      const std::string blocked = "SIGPROF blocked, so the CPU-time timer's signal never reached them";
      const std::string ticks = "SIGPROF open, but the CPU-time timer, checked at the kernel's tick, seldom caught them running";
      const std::string why = b == n ? blocked : b == 0 ? ticks : fmt("%u with ", b) + blocked + fmt("; %u with ", n - b) + ticks;
      o += fmt("Not sampled: %u thread%s on %u rank%s ran %.3f s of CPU that no sample stands for (%s); their "
               "functions are missing from the tables below. sampler=perf samples them.\n",
               n, n == 1 ? "" : "s", r.pmu_unsampled_ranks, r.pmu_unsampled_ranks == 1 ? "" : "s", r.pmu_unsampled_cpu_s,
               why.c_str());
      for (const Report::UnsampledThread& t : r.pmu_unsampled_list)
        o += fmt("  rank %d thread %u: %.3f s of CPU, %.3f s sampled%s\n", t.rank, t.tid, t.cpu_s, t.sampled_s,
                 t.sigprof_blocked == 1 ? ", SIGPROF blocked" : "");
    }
    // The sampler starts in MPI_Init: the path's start-up before it is in no table below.
    if (r.cp_length_s > 0 && r.cp_startup_s >= 0.01 * r.cp_length_s)
      o += fmt("Not sampled: the start-up before MPI_Init, %.6f s of the critical path (%.1f %%); the tables below "
               "cover the path from MPI_Init on.\n",
               r.cp_startup_s, 100 * r.cp_startup_s / r.cp_length_s);
    const bool hw = r.pmu_source == "hardware";
    hot_table(o, "Hotspots on the critical path (time inside MPI per call)", r.hot_path, hw);
    // Without samples inside MPI the compute table would repeat the one above.
    if (!r.hot_path_mpi.empty()) {
      hot_table(o, "Hotspots on the critical path: compute", r.hot_path_compute, hw);
      hot_table(o, "Hotspots on the critical path: inside MPI (libraries)", r.hot_path_mpi, hw);
    }
    hot_table(o, "Top hotspots (all samples, all ranks)", r.hot_all, hw);
    if (!r.hot_incl_all.empty()) {
      hot_table(o, "Inclusive time on the critical path (a function with its callees; call chains)", r.hot_incl_path, hw);
      hot_table(o, "Inclusive time (all samples, all ranks; call chains)", r.hot_incl_all, hw);
    }
  }
  o += wait_states_text(r);
  o += communication_text(r);
  o += what_if_text(r.what_if);
  if (r.timeline.written)
    o += fmt("\nTimeline: %s (%s, %llu of %llu slices)%s%s\n", r.timeline.file.c_str(), size_str(r.timeline.bytes).c_str(),
             static_cast<unsigned long long>(r.timeline.slices_kept),
             static_cast<unsigned long long>(r.timeline.slices_total), r.timeline.note.empty() ? "" : ": ",
             r.timeline.note.c_str());
  else if (!r.timeline.note.empty())
    o += "\nTimeline: " + r.timeline.note + "\n";
  append_approximations(o, r);
  if (!r.out_dir.empty()) o += "\nFiles: " + r.out_dir + " (report.json, report.txt)\n";
  o += "==== end of libcpath report\n";
  return o;
}

}  // namespace cpath
