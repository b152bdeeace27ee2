#include "pmu_attribution.h"

#include <unordered_map>

#include "analysis_hooks.h"
#include "phase_times.h"
#include "tree_reduce.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "call_info.h"
#include "hotspot_names.h"
#include "inclusive_hotspots.h"

#include "pmu/hotspots.h"
#include "pmu/module_map.h"
#include "pmu/sampler.h"
#include "pmu/symbolizer.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

constexpr int kHotTag = 0x6368;

// Merges every rank's tables on rank 0 along a binomial tree (no raw samples travel).
void reduce_hotspots(pmu::HotspotTables* t, MPI_Comm comm, int tag = kHotTag) {
  tree_merge_to_root(
      comm, tag,
      [&](const std::vector<uint8_t>& bytes) {
        pmu::HotspotTables other;
        if (pmu::HotspotTables::deserialise(bytes.data(), bytes.size(), other)) t->merge(other);
      },
      [&] {
        std::vector<uint8_t> buf;
        if (!t->serialise(buf)) buf.clear();
        return buf;
      });
}

std::vector<HotspotRow> rows(const pmu::HotspotTable& t, size_t n) {
  std::vector<HotspotRow> out;
  for (const pmu::HotspotRow& r : t.top(n)) {
    HotspotRow h;
    h.function = r.function;
    h.module = r.module;
    h.cpu_s = r.cpu_s();
    if (t.has_instructions) {
      h.instructions = static_cast<double>(r.instructions);
      if (t.has_cycles && r.instructions) h.cpi = r.cpi();
    }
    out.push_back(h);
  }
  return out;
}

}  // namespace

void pmu_start(const Runtime& rt) {
  if (!rt.opt.sample) return;
  pmu::SamplerOptions o;
  o.events = rt.opt.events;
  o.period = rt.opt.period;
  o.freq_hz = rt.opt.freq;
  o.max_rate_hz = rt.opt.freq;
  o.mechanism = rt.opt.sampler == "perf"    ? pmu::Mechanism::perf
                : rt.opt.sampler == "timer" ? pmu::Mechanism::timer
                                            : pmu::Mechanism::automatic;
  o.callchain = rt.opt.callchain;
  o.quiet = true;  // rank 0 prints the one note for the job (after_init)
  pmu::sampler_start(o);
  const pmu::SamplerStats s = pmu::sampler_stats();
  if (rt.rank == 0 && !s.note.empty() && !rt.opt.quiet) note(s.note);
}

void pmu_stop() { pmu::sampler_stop(); }

void sampling_start() { pmu_start(runtime()); }
void sampling_stop() { pmu_stop(); }

void PmuResult::fill(Report* r) const {
  if (!enabled) return;
  r->pmu_enabled = true;
  r->pmu_source = partial.pmu_source;
  r->pmu_note = partial.pmu_note;
  r->pmu_events = partial.pmu_events;
  r->pmu_samples = partial.pmu_samples;
  r->pmu_lost = partial.pmu_lost;
  r->pmu_freq_hz = partial.pmu_freq_hz;
  r->pmu_period = partial.pmu_period;
  r->pmu_effective_hz = partial.pmu_effective_hz;
  r->pmu_cpu_share = partial.pmu_cpu_share;
  r->pmu_cpu_share_min = partial.pmu_cpu_share_min;
  r->pmu_unsampled_threads = partial.pmu_unsampled_threads;
  r->pmu_unsampled_ranks = partial.pmu_unsampled_ranks;
  r->pmu_unsampled_blocked = partial.pmu_unsampled_blocked;
  r->pmu_unsampled_cpu_s = partial.pmu_unsampled_cpu_s;
  r->pmu_unsampled_list = partial.pmu_unsampled_list;
  r->hot_all = partial.hot_all;
  r->hot_path = partial.hot_path;
  r->hot_path_compute = partial.hot_path_compute;
  r->hot_path_mpi = partial.hot_path_mpi;
  r->hot_incl_all = partial.hot_incl_all;
  r->hot_incl_path = partial.hot_incl_path;
}

namespace {
// Basename of the module holding this code, as the symboliser names it: it reads
// /proc/self/maps, which shows the file the link resolves to (libcpath.so.0.2.0 when
// preloaded as libcpath.so), so the name dladdr gives is resolved first.
std::string own_module_name() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&own_module_name), &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  if (char* real = realpath(info.dli_fname, nullptr)) {
    path = real;
    free(real);
  }
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
// Samples taken in a module that was dlclose'd afterwards (pmu/module_map.h, UnloadedModule):
// the symboliser of MPI_Finalize sees the modules loaded then, so such an address is rewritten
// as (kUnloadedTag | module index << 40 | offset from its base) and resolved against that
// module's file.
constexpr uint64_t kUnloadedTag = uint64_t{1} << 63;
constexpr int kUnloadedShift = 40;
constexpr uint64_t kUnloadedOffsetMask = (uint64_t{1} << kUnloadedShift) - 1;

uint64_t unloaded_ip(const std::vector<pmu::UnloadedModule>& gone, uint64_t time_ns, uint64_t ip) {
  // In unload order: the first unload after the sample whose span holds the address is the
  // module that was there (one loaded at the same place later was unloaded after it).
  for (size_t k = 0; k < gone.size(); ++k) {
    const pmu::ModuleMapEntry& m = gone[k].module;
    if (gone[k].unloaded_ns > time_ns && ip >= m.base && ip - m.base < m.size && ip - m.base <= kUnloadedOffsetMask)
      return kUnloadedTag | (static_cast<uint64_t>(k) << kUnloadedShift) | (ip - m.base);
  }
  return ip;
}

void tag_unloaded(const std::vector<pmu::UnloadedModule>& gone, std::vector<pmu::Sample>* samples,
                  std::vector<uint64_t>* chains) {
  if (gone.empty()) return;
  for (pmu::Sample& s : *samples) {
    s.ip = unloaded_ip(gone, s.time_ns, s.ip);
    for (uint32_t k = 0; k < s.chain_len && s.chain_begin + k < chains->size(); ++k) {
      uint64_t& a = (*chains)[s.chain_begin + k];
      a = unloaded_ip(gone, s.time_ns, a);
    }
  }
}

// Threads the CPU-time timer missed (pmu/timer_sampler.h, unsampled): totals, and each rank's
// worst few (fixed-size, so one gather) of which rank 0 keeps the worst overall.
void gather_unsampled(std::vector<pmu::timer::UnsampledThread> u, int me, MPI_Comm comm, Report* out) {
  constexpr int kEach = 4, kFields = 4;  // tid, cpu ns, sampled ns, blocked
  int np = 1;
  PMPI_Comm_size(comm, &np);
  std::sort(u.begin(), u.end(), [](const auto& a, const auto& b) { return a.cpu_ns - a.sampled_ns > b.cpu_ns - b.sampled_ns; });
  double sums[4] = {static_cast<double>(u.size()), u.empty() ? 0.0 : 1.0, 0, 0}, tot[4] = {0, 0, 0, 0};
  std::vector<double> mine(kEach * kFields, -1.0), all(me == 0 ? mine.size() * static_cast<size_t>(np) : 0);
  for (size_t k = 0; k < u.size(); ++k) {
    sums[2] += u[k].sigprof_blocked == 1;
    sums[3] += static_cast<double>(u[k].cpu_ns - u[k].sampled_ns);
    if (k < kEach) {
      double* f = &mine[k * kFields];
      f[0] = u[k].tid;
      f[1] = static_cast<double>(u[k].cpu_ns);
      f[2] = static_cast<double>(u[k].sampled_ns);
      f[3] = u[k].sigprof_blocked;
    }
  }
  tool_reduce(sums, tot, 4, MPI_DOUBLE, MPI_SUM, 0, comm);
  tool_gather(mine.data(), kEach * kFields, MPI_DOUBLE, all.data(), kEach * kFields, MPI_DOUBLE, 0, comm);
  out->pmu_unsampled_threads = static_cast<uint32_t>(tot[0]);
  out->pmu_unsampled_ranks = static_cast<uint32_t>(tot[1]);
  out->pmu_unsampled_blocked = static_cast<uint32_t>(tot[2]);
  out->pmu_unsampled_cpu_s = tot[3] * 1e-9;
  auto& list = out->pmu_unsampled_list;
  for (size_t i = 0; i + kFields <= all.size(); i += kFields)
    if (all[i + 1] >= 0) {
      Report::UnsampledThread t;
      t.rank = static_cast<int>(i / (kEach * kFields));
      t.tid = static_cast<uint32_t>(all[i]);
      t.cpu_s = all[i + 1] * 1e-9;
      t.sampled_s = all[i + 2] * 1e-9;
      t.sigprof_blocked = static_cast<int>(all[i + 3]);
      list.push_back(t);
    }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a.cpu_s - a.sampled_s != b.cpu_s - b.sampled_s ? a.cpu_s - a.sampled_s > b.cpu_s - b.sampled_s : a.rank < b.rank;
  });
  if (list.size() > 8) list.resize(8);
}

}  // namespace

PmuResult attribute_samples(const WalkResult& walk, const Timeline& tl, const RankTrace& trace, const Runtime& rt,
                            MPI_Comm comm, const ClockRepairResult* clock, SiteNames* names,
                            SampleFunctions* functions) {
  PmuResult res;
  if (!rt.opt.sample) return res;
  res.enabled = true;
  pmu::sampler_stop();
  const pmu::SamplerStats st = pmu::sampler_stats();
  // Samples carry CLOCK_MONOTONIC_RAW; put them on the aligned clock of the path segments.
  std::vector<pmu::Sample> samples = pmu::sampler_samples();
  std::vector<uint64_t> chains;
  if (rt.opt.callchain) chains = pmu::sampler_callchains();
  const std::vector<pmu::UnloadedModule> unloaded = pmu::unloaded_modules();
  tag_unloaded(unloaded, &samples, &chains);
  // The repair shifts each thread's calls by their own constraints: a sample takes its thread's
  // shift (a thread without calls, e.g. an OpenMP worker, the MPI_Init thread's, whose
  // intervals its samples count for).
  std::vector<std::vector<uint32_t>> calls_of_slot;
  if (clock && !clock->beta.empty()) {
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      const uint32_t slot = tl.slot(i);
      if (slot >= calls_of_slot.size()) calls_of_slot.resize(slot + 1);
      calls_of_slot[slot].push_back(i);
    }
  }
  for (pmu::Sample& s : samples) {
    const int64_t t = trace.align.to_global(trace.ticks.inject(static_cast<int64_t>(s.time_ns)));
    const std::vector<uint32_t>* calls = nullptr;
    if (calls_of_slot.size() > 1) {
      uint32_t slot = tl.init_slot;
      for (uint32_t k = 0; k < trace.os_tids.size() && k < calls_of_slot.size(); ++k)
        if (trace.os_tids[k] == s.tid) slot = k;
      if (slot < calls_of_slot.size()) calls = &calls_of_slot[slot];
    }
    s.time_ns = static_cast<uint64_t>(clock ? t + clock->shift_at(tl, t, calls) : t);
  }
  pmu::sampler_release_samples();
  std::vector<pmu::TimeInterval> iv;
  iv.reserve(walk.path.size());
  for (const Segment& s : walk.path) {
    if (s.end <= s.begin) continue;
    const bool mpi = s.kind == SegmentKind::Mpi;
    const uint32_t slot = tl.slot(s.event);
    const uint32_t tid = mpi && slot < trace.os_tids.size() ? trace.os_tids[slot] : 0u;
    iv.push_back({static_cast<uint64_t>(s.begin), static_cast<uint64_t>(s.end),
                  mpi ? pmu::IntervalKind::mpi : pmu::IntervalKind::compute, mpi ? tl.ev[s.event].e.call : 0u, tid});
  }
  std::vector<std::string> labels(kNumCalls);
  for (unsigned c = 0; c < kNumCalls; ++c) labels[c] = kCallInfo[c].name;
  const std::string own = own_module_name();
  std::sort(iv.begin(), iv.end(), [](const pmu::TimeInterval& a, const pmu::TimeInterval& b) { return a.t0 < b.t0; });
  PhaseTimes& ph = finalize_phases();
  ph.mark("hotspots: samples to path time");
  pmu::HotspotTables tables;
  pmu::HotspotTables inclusive;  // callchain=1: all = every sample, inside = on the path
  {
    std::optional<pmu::Symbolizer> own_sym;
    if (names == nullptr) {
      pmu::SymbolizerOptions so;
      so.source_lines = false;
      own_sym.emplace(pmu::Symbolizer::from_current_process(so));
    }
    pmu::Symbolizer& sym = names ? names->symbolizer() : *own_sym;
    ph.mark("hotspots: symboliser set-up");
    // Samples cluster in a few hot functions: answer addresses inside an already resolved
    // symbol from its range instead of asking libdwfl again.
    struct Range {
      uint64_t start, end;
      pmu::FunctionKey key;
    };
    std::vector<Range> ranges;  // sorted by start, non-overlapping
    std::vector<std::unique_ptr<pmu::Symbolizer>> gone_sym(unloaded.size());
    const pmu::FunctionResolver resolve = [&](uint64_t ip) {
                              const size_t k = static_cast<size_t>((ip & ~kUnloadedTag) >> kUnloadedShift);
                              if ((ip & kUnloadedTag) && k < unloaded.size()) {
                                if (!gone_sym[k]) {
                                  pmu::SymbolizerOptions so;
                                  so.source_lines = false;
                                  gone_sym[k] = std::make_unique<pmu::Symbolizer>(
                                      pmu::Symbolizer::from_module_map({unloaded[k].module}, so));
                                }
                                const uint64_t a = unloaded[k].module.base + (ip & kUnloadedOffsetMask);
                                return hotspot_key(gone_sym[k]->lookup_function(a), false);
                              }
                              auto it = std::upper_bound(ranges.begin(), ranges.end(), ip,
                                                         [](uint64_t a, const Range& r) { return a < r.start; });
                              if (it != ranges.begin() && ip < std::prev(it)->end) return std::prev(it)->key;
                              const pmu::SymbolInfo& si = sym.lookup_function(ip);
                              pmu::FunctionKey key = hotspot_key(si, !own.empty() && si.module == own);
                              if (si.symbol_size > 0 && ip >= si.symbol_start && ip - si.symbol_start < si.symbol_size)
                                ranges.insert(it, Range{si.symbol_start, si.symbol_start + si.symbol_size, key});
                              return key;
                            };
    pmu::aggregate_hotspots(samples, iv, resolve, st.has_cycles, st.has_instructions, tables, labels);
    if (rt.opt.callchain) inclusive_hotspots(samples, chains, iv, resolve, &inclusive);
    if (functions) {
      // The hotspot tables' own resolution per sample (ranges first, libcpath's module named
      // as there), so a what-if function scenario selects exactly the samples its row counted.
      std::unordered_map<std::string, uint32_t> ids;
      functions->time.reserve(samples.size());
      functions->fn.reserve(samples.size());
      for (const pmu::Sample& smp : samples) {
        const std::string fname = resolve(smp.ip).function;
        auto id = ids.emplace(fname, static_cast<uint32_t>(functions->names.size()));
        if (id.second) functions->names.push_back(fname);
        functions->time.push_back(static_cast<int64_t>(smp.time_ns));
        functions->fn.push_back(id.first->second);
      }
    }
  }
  if (rt.opt.verbose)
    note("rank " + std::to_string(rt.rank) + ": " + std::to_string(samples.size()) + " samples, " +
         std::to_string(tables.all.total_cpu_ns() / 1000000) + " ms CPU, " +
         std::to_string(tables.inside.total_cpu_ns() / 1000000) + " ms on the path; threads " +
         std::to_string(st.threads_monitored) + " monitored, " + std::to_string(st.threads_failed) + " failed; lost " +
         std::to_string(st.lost) + ", dropped " + std::to_string(st.dropped) + ", throttled " + std::to_string(st.throttled));
  ph.mark("hotspots: aggregation");
  reduce_hotspots(&tables, comm);
  if (rt.opt.callchain) reduce_hotspots(&inclusive, comm, kHotTag + 1);
  // The timer's achieved rate over the job: samples per second of the CPU time they stand for.
  const bool timer = st.effective_hz > 0;
  unsigned long long counts[3] = {st.samples, st.lost, timer ? static_cast<unsigned long long>(st.samples * 1e9 / st.effective_hz) : 0},
                     sums[3] = {0, 0, 0};
  tool_reduce(counts, sums, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
  if (timer && sums[2]) res.partial.pmu_effective_hz = static_cast<double>(sums[0]) * 1e9 / static_cast<double>(sums[2]);
  // How much of a CPU the sampled threads had (pmu/timer_sampler.h, cpu_share): the job's
  // CPU-weighted mean and the least of any rank. Every rank takes part (the sampler mode is
  // the same everywhere); a rank without two samples on a thread counts as running throughout.
  {
    const double mine = st.timer_cpu_ns > 0 ? st.timer_ran_ns / st.timer_cpu_ns : 1.0;
    double in[2] = {st.timer_ran_ns, st.timer_cpu_ns}, out[2] = {0, 0}, least = 1.0;
    tool_reduce(in, out, 2, MPI_DOUBLE, MPI_SUM, 0, comm);
    tool_reduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
    if (timer && out[1] > 0) {
      res.partial.pmu_cpu_share = out[0] / out[1];
      res.partial.pmu_cpu_share_min = least;
    }
  }
  gather_unsampled(st.unsampled, rt.rank, comm, &res.partial);
  res.partial.pmu_source = pmu::to_string(st.source);
  res.partial.pmu_events = st.events_used;
  res.partial.pmu_freq_hz = st.freq_hz;
  res.partial.pmu_period = st.period;
  res.partial.pmu_note = st.note;
  if (!st.has_instructions && st.source != pmu::EventSource::none)
    res.partial.pmu_note += std::string(res.partial.pmu_note.empty() ? "" : ". ") +
                            "Instructions and CPI need hardware counters: shown as n/a.";
  res.partial.pmu_samples = sums[0];
  res.partial.pmu_lost = sums[1];
  const size_t n = rt.opt.top;
  res.partial.hot_all = rows(tables.all, n);
  res.partial.hot_path = rows(tables.inside, n);
  res.partial.hot_path_compute = rows(tables.compute, n);
  res.partial.hot_path_mpi = rows(tables.mpi, n);
  if (rt.opt.callchain) {
    res.partial.hot_incl_all = rows(inclusive.all, n);
    res.partial.hot_incl_path = rows(inclusive.inside, n);
  }
  return res;
}

}  // namespace cpath
