#include "timeline.h"

#include <algorithm>

#include "call_info.h"

namespace cpath {

Timeline build_timeline(const RankTrace& t) {
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
  std::vector<Key> order;
  order.reserve(n);
  for (size_t th = 0; th < t.threads.size(); ++th) {
    const auto& evs = t.threads[th].events;
    for (size_t i = 0; i < evs.size(); ++i)
      order.push_back({t.global_ns(evs[i].t_begin), static_cast<uint32_t>(th), static_cast<uint32_t>(i)});
  }
  // One thread's records are already in time order; only several threads need merging.
  if (t.threads.size() > 1)
    std::stable_sort(order.begin(), order.end(), [](const Key& a, const Key& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.thread != b.thread) return a.thread < b.thread;
      return a.index < b.index;
    });
  for (const Key& k : order) {
    const DecodedThread& d = t.threads[k.thread];
    TimelineEvent te;
    te.e = d.events[k.index];
    te.begin = k.begin;
    te.end = t.global_ns(te.e.t_end);
    if (te.end < te.begin) te.end = te.begin;
    const uint32_t fields = call_info(te.e.call).fields;
    if (fields & kField_comm) te.comm = t.comm_record(te.e.comm, te.e.t_begin);
    if (fields & kField_completions) {
      te.e.list_begin = static_cast<uint32_t>(tl.completions.size());
      tl.completions.insert(tl.completions.end(), d.completions.begin() + d.events[k.index].list_begin,
                            d.completions.begin() + d.events[k.index].list_begin + te.e.list_count);
    } else if (fields & kField_reqlist) {
      te.e.list_begin = static_cast<uint32_t>(tl.reqlists.size());
      tl.reqlists.insert(tl.reqlists.end(), d.reqlists.begin() + d.events[k.index].list_begin,
                         d.reqlists.begin() + d.events[k.index].list_begin + te.e.list_count);
    }
    tl.ev.push_back(te);
  }
  return tl;
}

}  // namespace cpath
