#include "regions.h"

#include <algorithm>
#include <unordered_map>

#include "report.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

uint64_t pair_key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }

// From the markers: the thread's decoded events are released before regions are mapped.
uint32_t thread_of(const DecodedThread& d) { return d.regions.empty() ? 0 : d.regions.front().thread; }

}  // namespace

size_t RegionMap::upper_index(const std::vector<int64_t>& v, int64_t x) {
  return static_cast<size_t>(std::upper_bound(v.begin(), v.end(), x) - v.begin());
}

RegionMap::RegionMap(const Timeline& tl) {
  if (!tl.trace) return;
  const RankTrace& t = *tl.trace;
  for (const DecodedThread& d : t.threads) marks_ += d.regions.size();
  if (marks_ == 0) return;
  if (!tl.ev.empty()) end_ = tl.ev.back().end;
  for (const TimelineEvent& te : tl.ev) end_ = std::max(end_, te.end);

  // Each thread's events in timeline order, to place markers between them on the timeline's
  // clock (which may have moved events, e.g. clock repair): a marker keeps its offset to the
  // thread's next event and never lands inside an MPI call.
  std::vector<std::vector<uint32_t>> on_thread;
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const uint32_t th = tl.thread_of(i);
    if (on_thread.size() <= th) on_thread.resize(th + 1);
    on_thread[th].push_back(i);
  }

  // The events' times as first aligned, before any repair moved them: the marks' own clock.
  auto aligned = [&](uint32_t i) {
    return i < tl.aligned.size() ? tl.aligned[i] : std::make_pair(tl.ev[i].begin, tl.ev[i].end);
  };
  std::unordered_map<std::string, uint32_t> name_index;
  std::unordered_map<uint64_t, uint32_t> node_index, state_index;
  auto global_name = [&](const std::string& s) {
    auto it = name_index.find(s);
    if (it != name_index.end()) return it->second;
    names_.push_back(s);
    return name_index[s] = static_cast<uint32_t>(names_.size() - 1);
  };
  auto child = [&](uint32_t parent, uint32_t region) {
    auto [it, fresh] = node_index.emplace(pair_key(parent, region), static_cast<uint32_t>(nodes_.size()));
    if (fresh) nodes_.push_back(Node{parent, region});
    return it->second;
  };
  auto state_of = [&](uint32_t node, uint32_t phase) {
    if (node == 0 && phase == kNone) return 0u;
    auto [it, fresh] = state_index.emplace(pair_key(node, phase), static_cast<uint32_t>(states_.size()));
    if (fresh) states_.push_back(State{node, nodes_[node].region, phase});
    return it->second;
  };

  for (const DecodedThread& d : t.threads) {
    if (d.regions.empty()) continue;
    const uint32_t th = thread_of(d);
    if (threads_.size() <= th) threads_.resize(th + 1);
    Thread& out = threads_[th];
    std::vector<uint32_t> local(d.region_names.size(), kNone);
    for (size_t i = 1; i < d.region_names.size(); ++i)
      local[i] = global_name(d.region_names[i].empty() ? "(unnamed)" : d.region_names[i]);
    static const std::vector<uint32_t> kNoEvents;
    const std::vector<uint32_t>& idx = th < on_thread.size() ? on_thread[th] : kNoEvents;
    // The timeline holds every recorded event of the thread in recorded order (one thread's
    // records are time-ordered), so idx[k] is the thread's k-th event: its recorded stamps,
    // aligned, are in tl.aligned[idx[k]], and the decoded copies can be released before this runs.
    uint32_t node = 0, phase = kNone;
    int64_t last = INT64_MIN;
    for (const RegionMark& m : d.regions) {
      int64_t at = t.global_ns(m.tick);
      const uint32_t k = m.next_event;
      if (k <= idx.size()) {
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (k > 0) lo = tl.ev[idx[k - 1]].end;
        if (k < idx.size()) {
          hi = tl.ev[idx[k]].begin;
          at += hi - aligned(idx[k]).first;
        } else if (k > 0) {
          at += lo - aligned(idx[k - 1]).second;
        }
        at = std::min(std::max(at, lo), hi);
      }
      at = std::max(at, last);
      last = at;
      const uint32_t name = m.id < local.size() ? local[m.id] : kNone;
      switch (m.kind) {
        case RegionKind::Begin:
          if (name != kNone) node = child(node, name);
          break;
        case RegionKind::Phase:
          if (name != kNone) phase = name;
          break;
        case RegionKind::End: {
          // Closes the innermost open region of that name and whatever was left open inside it.
          uint32_t n = node;
          while (n != 0 && name != kNone && nodes_[n].region != name) n = nodes_[n].parent;
          if (n == 0) ++unmatched_ends_;
          else node = nodes_[n].parent;
          break;
        }
      }
      const uint32_t st = state_of(node, phase);
      if (!out.at.empty() && out.at.back() == at) {
        out.state.back() = st;
      } else if (out.state.empty() ? st != 0 : out.state.back() != st) {
        out.at.push_back(at);
        out.state.push_back(st);
      }
    }
  }
}

void RegionMap::open_regions(uint32_t state, std::vector<uint32_t>* out) const {
  out->clear();
  for (uint32_t n = states_[state].node; n != 0; n = nodes_[n].parent)
    if (std::find(out->begin(), out->end(), nodes_[n].region) == out->end()) out->push_back(nodes_[n].region);
}

std::vector<double> RegionMap::open_time_ns() const {
  std::vector<double> out(names_.size(), 0.0);
  std::vector<uint32_t> open;
  for (const Thread& t : threads_) {
    for (size_t k = 0; k < t.at.size(); ++k) {
      const int64_t e = k + 1 < t.at.size() ? t.at[k + 1] : std::max(end_, t.at[k]);
      open_regions(t.state[k], &open);
      for (uint32_t r : open) out[r] += static_cast<double>(e - t.at[k]);
    }
  }
  return out;
}

RegionProfile profile_regions(const WalkResult& w, const Timeline& tl, const RegionMap& regions) {
  RegionProfile p;
  p.used = !regions.empty();
  p.unmatched_ends = regions.unmatched_ends();
  std::unordered_map<uint32_t, std::vector<double>> by_region, by_phase;
  std::vector<uint32_t> open;
  // Time in state st: its innermost region's exclusive row, every open region's inclusive
  // column, its phase's row.
  auto add_state = [&](uint32_t st, double total, double compute, double mpi) {
    auto& r = by_region[regions.innermost(st)];
    r.resize(4, 0.0);
    r[0] += total;
    r[1] += compute;
    r[2] += mpi;
    regions.open_regions(st, &open);
    for (uint32_t o : open) {
      auto& incl = by_region[o];
      incl.resize(4, 0.0);
      incl[3] += total;
    }
    auto& ph = by_phase[regions.phase(st)];
    ph.resize(3, 0.0);
    ph[0] += total;
    ph[1] += compute;
    ph[2] += mpi;
  };
  if (!p.used) {
    // No marker on this rank: every segment is in state 0 (what split would say), summed
    // without a map lookup per segment; the rows are still needed when another rank has regions.
    double t[3] = {0, 0, 0};
    for (const Segment& s : w.path) {
      const double ns = static_cast<double>(s.end - s.begin);
      t[0] += ns;
      t[s.kind == SegmentKind::Mpi ? 2 : 1] += ns;
    }
    if (!w.path.empty()) add_state(0, t[0], t[1], t[2]);
  } else {
    for (const Segment& s : w.path) {
      const bool mpi = s.kind == SegmentKind::Mpi;
      // Start-up precedes MPI_Init, when no marker can have been recorded.
      const uint32_t thread = s.kind == SegmentKind::Startup ? UINT32_MAX : tl.thread_of(s.event);
      regions.split(thread, s.begin, s.end, [&](uint32_t st, int64_t b, int64_t e) {
        const double ns = static_cast<double>(e - b);
        add_state(st, ns, mpi ? 0.0 : ns, mpi ? ns : 0.0);
      });
    }
  }
  for (auto& [k, v] : by_region) p.by_region[regions.name(k)] = v;
  for (auto& [k, v] : by_phase) p.by_phase[regions.name(k)] = v;
  const std::vector<double> open_ns = regions.open_time_ns();
  for (size_t i = 1; i < open_ns.size(); ++i)
    if (open_ns[i] > 0) p.open_time[regions.name(static_cast<uint32_t>(i))] = {open_ns[i]};
  return p;
}

void report_regions(RegionProfile& p, MPI_Comm comm, Report* rep) {
  int mine = p.used ? 1 : 0, any = 0;
  tool_allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any) return;
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  reduce_table_to_root(&p.by_region, comm);
  reduce_table_to_root(&p.by_phase, comm);
  reduce_table_to_root(&p.open_time, comm);
  unsigned long long unmatched = p.unmatched_ends, unmatched_sum = 0;
  tool_reduce(&unmatched, &unmatched_sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
  if (me != 0) return;

  RegionSection& out = rep->regions;
  out.used = true;
  out.unmatched_ends = unmatched_sum;
  for (const auto& [name, v] : p.by_region) {
    if (name.empty()) {
      out.outside_s = v[0] * 1e-9;
      continue;
    }
    RegionRow row;
    row.region = name;
    row.time_s = v[0] * 1e-9;
    row.compute_s = v[1] * 1e-9;
    row.mpi_s = v[2] * 1e-9;
    row.inclusive_s = v[3] * 1e-9;
    auto it = p.open_time.find(name);
    row.mean_open_s = it == p.open_time.end() ? 0.0 : it->second[0] * 1e-9 / np;
    out.rows.push_back(row);
  }
  // Regions that never held the path still appear, with their open time.
  for (const auto& [name, v] : p.open_time)
    if (!p.by_region.count(name)) out.rows.push_back(RegionRow{name, 0, 0, 0, 0, v[0] * 1e-9 / np});
  std::sort(out.rows.begin(), out.rows.end(), [](const RegionRow& a, const RegionRow& b) {
    if (a.inclusive_s != b.inclusive_s) return a.inclusive_s > b.inclusive_s;
    return a.region < b.region;
  });
  for (const auto& [name, v] : p.by_phase) {
    if (name.empty() && p.by_phase.size() == 1) break;  // no phase markers anywhere
    out.phases.push_back(PhaseRow{name, v[0] * 1e-9, v[1] * 1e-9, v[2] * 1e-9});
  }
  std::sort(out.phases.begin(), out.phases.end(), [](const PhaseRow& a, const PhaseRow& b) { return a.time_s > b.time_s; });
}

}  // namespace cpath
