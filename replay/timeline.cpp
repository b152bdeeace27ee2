#include "timeline.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_map>

#include "call_info.h"
#include "map_cache.h"

namespace cpath {

namespace {

// Gives back the pages of an array whose elements are read once, front to back, while the
// array itself lives on: at finalize the decoded events are copied into the timeline and never
// read again, and without this both copies would be resident at the analysis peak. Released
// pages read as zeros; only whole pages of the consumed prefix are released.
class PrefixRelease {
 public:
  PrefixRelease() = default;
  PrefixRelease(const void* base, size_t elem)
      : base_(reinterpret_cast<uintptr_t>(base)), done_(base_), elem_(elem) {}
  void consumed(size_t n) {
    if (!base_) return;
    const uintptr_t end = (base_ + n * elem_) & ~(page() - 1);
    if (end < done_ + kStep) return;
    const uintptr_t from = std::max(done_, (base_ + page() - 1) & ~(page() - 1));
    if (end > from) madvise(reinterpret_cast<void*>(from), end - from, MADV_DONTNEED);
    done_ = end;
  }

 private:
  static constexpr uintptr_t kStep = 1u << 20;  // one system call per MiB consumed
  static uintptr_t page() {
    static const uintptr_t p = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    return p;
  }
  uintptr_t base_ = 0, done_ = 0;
  size_t elem_ = 0;
};

// Return addresses numbered in order of first use (Timeline::sites), looked up through a
// MapCache: a loop's calls come from a few sites, so nearly every event hits it.
class SiteNumbers {
 public:
  explicit SiteNumbers(std::vector<uint64_t>* sites) : sites_(sites) { sites_->assign(1, 0); }
  uint32_t id(uint64_t a) {
    if (!a) return 0;
    uint32_t& id = cache_.at(map_, a);
    if (!id) {
      id = static_cast<uint32_t>(sites_->size());
      sites_->push_back(a);
    }
    return id;
  }

 private:
  using Map = std::unordered_map<uint64_t, uint32_t>;
  std::vector<uint64_t>* sites_;
  Map map_;
  MapCache<Map, 256> cache_;
};

Timeline build(const RankTrace& t, bool release) {
  Timeline tl;
  tl.rank = t.rank;
  tl.size = t.size;
  tl.trace = &t;
  size_t n = 0;
  for (const DecodedThread& d : t.threads) n += d.events.size();
  tl.ev.reserve(n);
  struct Key {
    int64_t begin;
    uint32_t thread, index;
  };
  // One thread's records are already in time order; only several threads need merging (the
  // merge order costs 16 bytes per event, so a single thread goes without).
  const bool merge = t.threads.size() > 1;
  std::vector<Key> order;
  if (merge) {
    order.reserve(n);
    for (size_t th = 0; th < t.threads.size(); ++th) {
      const auto& evs = t.threads[th].events;
      for (size_t i = 0; i < evs.size(); ++i)
        order.push_back({t.global_ns(evs[i].t_begin), static_cast<uint32_t>(th), static_cast<uint32_t>(i)});
    }
    std::stable_sort(order.begin(), order.end(), [](const Key& a, const Key& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.thread != b.thread) return a.thread < b.thread;
      return a.index < b.index;
    });
  }
  // Within a thread, events (and their completion lists) are consumed in recorded order.
  std::vector<PrefixRelease> ev_release(release ? t.threads.size() : 0), cp_release(ev_release.size());
  for (size_t th = 0; th < ev_release.size(); ++th) {
    ev_release[th] = PrefixRelease(t.threads[th].events.data(), sizeof(Event));
    cp_release[th] = PrefixRelease(t.threads[th].completions.data(), sizeof(Completion));
  }
  size_t completions = 0, reqlists = 0, marks = 0;
  for (const DecodedThread& d : t.threads) {
    completions += d.completions.size();
    reqlists += d.reqlists.size();
    marks += d.regions.size();
  }
  tl.completions.reserve(completions);
  tl.reqlists.reserve(reqlists);
  tl.args.reserve(n);
  if (merge) tl.slots.reserve(n);
  if (marks) tl.aligned.reserve(n);
  bool seen_init = false;
  SiteNumbers sites(&tl.sites);
  std::vector<size_t> next_repeat(t.threads.size(), 0);  // per thread, into DecodedThread::repeats
  for (size_t x = 0; x < n; ++x) {
    const Key k = merge ? order[x] : Key{t.global_ns(t.threads[0].events[x].t_begin), 0, static_cast<uint32_t>(x)};
    const DecodedThread& d = t.threads[k.thread];
    const Event& de = d.events[k.index];
    TimelineEvent te;
    te.e.site = sites.id(de.callsite);
    if (de.bytes < kBigBytes) {
      te.e.bytes_lo = static_cast<uint32_t>(de.bytes);
    } else {
      te.e.bytes_lo = kBigBytes;
      tl.big_bytes.emplace_back(static_cast<uint32_t>(tl.ev.size()), de.bytes);
    }
    te.e.peer = de.peer;
    te.e.tag = de.tag;
    te.e.list_begin = de.list_begin;
    te.e.list_count = de.list_count;
    te.e.call = de.call;
    te.e.flags = de.flags;
    te.e.flag = de.flag;
    tl.args.push_back(EventArgs{de.req, de.req2, de.obj, de.aux, de.newcomm});
    if (merge) tl.slots.push_back(k.thread);
    te.begin = k.begin;
    te.end = t.global_ns(de.t_end);
    if (marks) tl.aligned.emplace_back(te.begin, te.end);
    if (te.end < te.begin) te.end = te.begin;
    const CallInfo& ci = call_info(de.call);
    const uint32_t fields = ci.fields;
    const uint32_t i = static_cast<uint32_t>(tl.ev.size());
    if (fields & kField_root) tl.roots.emplace_back(i, de.root);
    if (fields & (kField_peer2 | kField_tag2)) tl.second.push_back(SecondPeer{i, de.peer2, de.tag2});
    if (de.poll_count) tl.poll_lists.push_back(PollList{i, de.poll_begin, de.poll_count});
    {
      size_t& r = next_repeat[k.thread];
      while (r < d.repeats.size() && d.repeats[r].first < k.index) ++r;
      uint32_t merged = 0;
      for (; r < d.repeats.size() && d.repeats[r].first == k.index; ++r) merged += d.repeats[r].second;
      if (merged) tl.repeats.emplace_back(i, merged);
    }
    if (tl.slot_thread.size() <= k.thread) tl.slot_thread.resize(k.thread + 1, 0);
    tl.slot_thread[k.thread] = de.thread;
    if ((fields & kField_newcomm) && de.newcomm > 0) tl.newcomms.emplace_back(i, de.newcomm);
    if (fields & kField_aux) tl.aux.emplace_back(i, de.aux);
    if (ci.kind == CallKind::Init && !seen_init) tl.init_ticks = {de.t_begin, de.t_end}, seen_init = true;
    if (ci.kind == CallKind::Finalize) tl.finalize_ticks = {de.t_begin, de.t_end};
    if (fields & kField_comm) te.comm = t.comm_record(de.comm, de.t_begin);
    if (fields & kField_completions) {
      te.e.list_begin = static_cast<uint32_t>(tl.completions.size());
      tl.completions.insert(tl.completions.end(), d.completions.begin() + de.list_begin,
                            d.completions.begin() + de.list_begin + te.e.list_count);
    } else if (fields & kField_reqlist) {
      te.e.list_begin = static_cast<uint32_t>(tl.reqlists.size());
      tl.reqlists.insert(tl.reqlists.end(), d.reqlists.begin() + de.list_begin,
                         d.reqlists.begin() + de.list_begin + te.e.list_count);
    }
    if (release) {
      if (fields & kField_completions) cp_release[k.thread].consumed(de.list_begin + te.e.list_count);
      ev_release[k.thread].consumed(k.index + 1u);
    }
    tl.ev.push_back(te);
  }

  // A communicator is gone once freed: a later call on the same handle belongs to a
  // communicator created by a call libcpath does not see (MPI reuses the handle), not to it.
  if (!t.comms.empty()) {
    std::vector<uint8_t> freed(t.comms.size(), 0);
    for (TimelineEvent& te : tl.ev) {
      if (te.comm < 0) continue;
      if (freed[static_cast<size_t>(te.comm)]) {
        te.comm = -1;
        continue;
      }
      if (call_info(te.e.call).kind == CallKind::CommFree && !(te.e.flags & kFlagError)) freed[static_cast<size_t>(te.comm)] = 1;
    }
  }

  // Rule 1: per thread. A thread's first call follows the latest call of the thread that
  // created it that had ended when it was created (trace meta thread_births; a thread created
  // before MPI_Init, or by a thread that made no MPI call: the MPI_Init thread's, when the
  // first call began); the MPI_Init thread's first call leads to the start-up.
  const size_t slots = t.threads.size();
  // One slot: each event follows the one before it, and the first leads to the start-up.
  tl.prev.reset(tl.ev.size(), slots <= 1);
  tl.compute_before.assign(tl.ev.size(), 0);
  if (!tl.ev.empty()) tl.init_slot = tl.slot(0);  // no MPI_Init record: the first caller's thread
  for (uint32_t i = 0; i < tl.ev.size(); ++i)
    if (call_info(tl.ev[i].e.call).kind == CallKind::Init) {
      tl.init_slot = tl.slot(i);
      break;
    }
  std::vector<uint32_t> last(slots, kNoEvent);
  // Rule 5 counts the thread's work between two calls. A thread descheduled between two polls
  // of a loop (a busy machine: 2 ms chunks took over 50 ms of wall time at load 35) did not
  // work there: before a poll, a gap in which the thread's clock, read at its polls
  // (kCpuRecord), ran less than kCpuWorkNs counts as that CPU time (from the last read at or
  // before the previous call's end to the first at or after the poll's begin); the rest is
  // Timeline::idle. A gap in which it ran longer was work of its own, counted as its wall time
  // as before: a program whose work spins for a wall time (the probes') gets less CPU under
  // load, and 40 ms of a 100 ms stretch must not make it a loop's chunk. Gaps shorter than
  // kCpuGapNs are left as they are (the reads are up to a poll_cpu= period apart).
  std::vector<size_t> cpu_next(slots, 0);  // per slot: the first read after the previous call's end
  auto computation = [&](uint32_t s, uint32_t p, uint32_t i) {
    const int64_t wall = std::max<int64_t>(0, tl.ev[i].begin - tl.ev[p].end);
    const auto& cpu = t.threads[s].cpu;
    if (wall < kCpuGapNs || cpu.empty() || !(call_info(tl.ev[i].e.call).fields & (kField_flag | kField_polls))) return wall;
    size_t& a = cpu_next[s];
    while (a < cpu.size() && t.global_ns(cpu[a].first) <= tl.ev[p].end) ++a;
    size_t b = a;
    while (b < cpu.size() && t.global_ns(cpu[b].first) < tl.ev[i].begin) ++b;
    if (a == 0 || b == cpu.size()) return wall;
    const int64_t ran = cpu[b].second >= cpu[a - 1].second ? static_cast<int64_t>(cpu[b].second - cpu[a - 1].second) : 0;
    return ran < kCpuWorkNs ? std::min<int64_t>(wall, ran) : wall;
  };
  // Each thread's events so far (ends non-decreasing), only where a thread's first call may
  // follow another thread's.
  std::vector<std::vector<uint32_t>> of_slot(slots > 1 ? slots : 0);
  const std::vector<ThreadBirth> births = slots > 1 ? thread_births(t) : std::vector<ThreadBirth>();
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const uint32_t s = tl.slot(i);
    const uint32_t p = last[s];
    if (p != kNoEvent) {
      tl.prev.set(i, p);
      const int64_t wall = std::max<int64_t>(0, tl.ev[i].begin - tl.ev[p].end);
      tl.compute_before[i] = tl.compute_before[p] + wall;
      const int64_t work = computation(s, p, i);
      if (work < wall) {
        if (tl.idle.size() <= s) tl.idle.resize(s + 1);
        tl.idle[s].emplace_back(i, (tl.idle[s].empty() ? 0 : tl.idle[s].back().second) + (wall - work));
      }
    } else {
      ++tl.threads;
      if (s != tl.init_slot) {
        const int64_t b = tl.ev[i].begin;
        uint32_t from = tl.init_slot;
        int64_t bound = b;
        const uint32_t thread = s < tl.slot_thread.size() ? tl.slot_thread[s] : s;
        auto birth = std::lower_bound(births.begin(), births.end(), thread,
                                      [](const ThreadBirth& x, uint32_t v) { return x.thread < v; });
        if (birth != births.end() && birth->thread == thread) {
          bound = std::min(b, t.global_ns(birth->ticks));
          if (birth->creator >= 0)
            for (uint32_t c = 0; c < tl.slot_thread.size() && c < slots; ++c)
              if (tl.slot_thread[c] == static_cast<uint32_t>(birth->creator) && last[c] != kNoEvent) from = c;
        }
        const std::vector<uint32_t>& creator = of_slot[from];
        auto it = std::upper_bound(creator.begin(), creator.end(), bound,
                                   [&](int64_t v, uint32_t j) { return v < tl.ev[j].end; });
        if (it != creator.begin()) tl.prev.set(i, *std::prev(it));
        // The creator made calls between the birth and this first call: the thread may have
        // waited for one of them outside MPI (a condition variable, an OpenMP fork), which the
        // trace does not show (rule 9, thread_start).
        if (bound < b && it != creator.end() && tl.ev[*it].end <= b) ++tl.thread_starts_unknown;
      }
    }
    last[s] = i;
    if (!of_slot.empty()) of_slot[s].push_back(i);
  }

  // Gaps go before the first event that began at or after they were written (a resuming
  // MPI_Pcontrol(1), or MPI_Finalize).
  for (const DecodedThread& d : t.threads)
    for (const GapRecord& g : d.gaps) {
      const int64_t at = t.global_ns(g.t);
      const auto it = std::lower_bound(tl.ev.begin(), tl.ev.end(), at,
                                       [](const TimelineEvent& e, int64_t v) { return e.begin < v; });
      tl.gaps.push_back({static_cast<uint32_t>(it - tl.ev.begin()), g.comm, g.obj, g.count});
    }
  std::stable_sort(tl.gaps.begin(), tl.gaps.end(),
                   [](const TimelineGap& a, const TimelineGap& b) { return a.before < b.before; });
  return tl;
}

}  // namespace

Timeline build_timeline(const RankTrace& t) { return build(t, false); }

void Timeline::keep_poll_lists_only() {
  auto polled = [](const TimelineEvent& te) {
    const uint32_t f = call_info(te.e.call).fields;
    return (f & kField_completions) && (f & kField_polls);
  };
  size_t n = 0;
  for (const TimelineEvent& te : ev)
    if (polled(te)) n += te.e.list_count;
  std::vector<Completion> kept;
  kept.reserve(n);
  for (TimelineEvent& te : ev) {
    if (!polled(te)) continue;
    const uint32_t b = static_cast<uint32_t>(kept.size());
    kept.insert(kept.end(), completions.begin() + te.e.list_begin, completions.begin() + te.e.list_begin + te.e.list_count);
    te.e.list_begin = b;
  }
  completions.swap(kept);
  std::vector<uint64_t>().swap(reqlists);
}

Timeline build_timeline_releasing(RankTrace& t) { return build(t, true); }

}  // namespace cpath
