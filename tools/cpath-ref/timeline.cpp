// Timelines: each rank's calls on the job's global clock, threads merged, and communicators
// known job-wide.
//
// Time: a record's ticks become nanoseconds with the trace's tick model, then move onto the
// global clock with its alignment model (docs/trace-format.md, CLOCK section):
//   local  = ns0 + (ticks - tick0) * ns_per_tick   (+ the test distortion: skew + drift)
//   global = local + offset + drift * (local - ref_local)
// Numbering: a rank's calls are numbered in order of their begin on the global clock, ties by
// the thread's position in the file, then by record order (one thread: record order). The path
// files of the analysis use the same numbers.
//
// Communicators: a record's job-wide identity is MPI_COMM_WORLD, or (for a duplicate) its
// parent's identity and the duplicate's ordinal, or else the (world rank, counter) key the
// defining process gave it; its members are found by collecting every rank's record of that
// identity (local rank -> world rank).
#include <algorithm>
#include <climits>
#include <map>

#include "ref.h"

namespace cpref {

namespace {

int64_t local_ns(const cpath::TickModel& k, uint64_t tick) {
  int64_t ns = k.ns0 + static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(tick - k.tick0)) * k.ns_per_tick);
  if (k.inject_skew_ns != 0 || k.inject_drift != 0)
    ns = ns + k.inject_skew_ns + static_cast<int64_t>(static_cast<double>(ns - k.ns0) * k.inject_drift);
  return ns;
}

int64_t global_ns(const cpath::RankTrace& t, uint64_t tick) {
  const int64_t l = local_ns(t.ticks, tick);
  return l + static_cast<int64_t>(t.align.offset_ns + t.align.drift * static_cast<double>(l - t.align.ref_local_ns));
}

// Communicator record an event refers to: the latest record with its handle created no later
// than the event (MPI reuses the handles of freed communicators).
struct HandleIndex {
  std::map<uint64_t, std::vector<std::pair<uint64_t, int32_t>>> by_handle;  // handle -> (created tick, record)
  explicit HandleIndex(const std::vector<cpath::CommRecord>& recs) {
    for (size_t i = 0; i < recs.size(); ++i) by_handle[recs[i].handle].emplace_back(recs[i].created_tick, static_cast<int32_t>(i));
    for (auto& kv : by_handle)
      std::stable_sort(kv.second.begin(), kv.second.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  int32_t find(uint64_t handle, uint64_t tick) const {
    auto it = by_handle.find(handle);
    if (it == by_handle.end()) return -1;
    int32_t best = -1;
    for (const auto& [created, rec] : it->second)
      if (created <= tick) best = rec;
    return best;
  }
};

void build_calls(Rank& r) {
  const cpath::RankTrace& t = r.trace;
  struct Key {
    int64_t b;
    uint32_t thread, index;
  };
  std::vector<Key> keys;
  for (uint32_t th = 0; th < t.threads.size(); ++th)
    for (uint32_t i = 0; i < t.threads[th].events.size(); ++i)
      keys.push_back({global_ns(t, t.threads[th].events[i].t_begin), th, i});
  if (t.threads.size() > 1)
    std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      if (a.b != b.b) return a.b < b.b;
      if (a.thread != b.thread) return a.thread < b.thread;
      return a.index < b.index;
    });
  const HandleIndex handles(t.comms);
  std::vector<uint32_t> last_of_thread(t.threads.size(), kNone);
  r.calls.reserve(keys.size());
  for (const Key& k : keys) {
    Call c;
    c.ev = &t.threads[k.thread].events[k.index];
    c.th = &t.threads[k.thread];
    c.thread = k.thread;
    c.b = k.b;
    c.e = std::max(c.b, global_ns(t, c.ev->t_end));
    if (c.info().fields & cpath::kField_comm) c.comm = handles.find(c.ev->comm, c.ev->t_begin);
    c.prev = last_of_thread[k.thread];
    const uint32_t idx = static_cast<uint32_t>(r.calls.size());
    last_of_thread[k.thread] = idx;
    const cpath::CallKind kind = c.info().kind;
    if (kind == cpath::CallKind::Init && r.init == kNone) r.init = idx;
    if (kind == cpath::CallKind::Finalize) r.finalize = idx;
    r.calls.push_back(c);
  }
  // A freed communicator is gone: a later call on its handle is on a communicator created by a
  // call libcpath does not see (the handle reused), unknown (rule 9).
  std::vector<char> freed(t.comms.size(), 0);
  for (Call& c : r.calls) {
    if (c.comm < 0) continue;
    if (freed[static_cast<size_t>(c.comm)]) {
      c.comm = -1;
      continue;
    }
    if (c.info().kind == cpath::CallKind::CommFree && !(c.ev->flags & cpath::kFlagError)) freed[static_cast<size_t>(c.comm)] = 1;
  }
  // Rule 8: a gap goes before the first call that began at or after it was written.
  for (const cpath::DecodedThread& d : t.threads)
    for (const cpath::GapRecord& g : d.gaps) {
      const int64_t at = global_ns(t, g.t);
      uint32_t before = 0;
      while (before < r.calls.size() && r.calls[before].b < at) ++before;
      r.gaps.push_back(Gap{before, g.comm, g.obj, g.count});
    }
  std::stable_sort(r.gaps.begin(), r.gaps.end(), [](const Gap& a, const Gap& b) { return a.before < b.before; });
  for (const cpath::ThreadBirth& b : cpath::thread_births(t)) r.births.push_back({b.thread, b.creator, global_ns(t, b.ticks)});
}

void unify_communicators(Job* job) {
  const int np = static_cast<int>(job->ranks.size());
  std::map<std::string, int32_t> ids;
  for (int rk = 0; rk < np; ++rk) {
    Rank& r = job->ranks[static_cast<size_t>(rk)];
    const auto& recs = r.trace.comms;
    std::vector<std::string> key(recs.size());
    r.comm_id.assign(recs.size(), -1);
    for (size_t i = 0; i < recs.size(); ++i) {
      const cpath::CommRecord& c = recs[i];
      if (c.flags & cpath::kCommWorld) {
        key[i] = "world";
      } else if (c.flags & cpath::kCommDup) {
        // Parents precede their duplicates in the record list.
        if (c.parent < 0 || static_cast<size_t>(c.parent) >= i) continue;
        key[i] = key[static_cast<size_t>(c.parent)] + "/dup" + std::to_string(c.dup_ordinal);
        if (key[static_cast<size_t>(c.parent)].empty()) key[i].clear();
      } else {
        key[i] = std::to_string(c.key_rank) + "." + std::to_string(c.key_counter);
        // The two groups of an intercommunicator share its key: one communicator per side.
        if (c.flags & cpath::kCommInterKnown) key[i] += (c.flags & cpath::kCommInterSide1) ? "|s1" : "|s0";
      }
      if (key[i].empty()) continue;
      auto it = ids.find(key[i]);
      if (it == ids.end()) {
        it = ids.emplace(key[i], static_cast<int32_t>(job->comms.size())).first;
        Comm cm;
        cm.world.assign(static_cast<size_t>(std::max(c.size, 1)), -1);
        job->comms.push_back(cm);
      }
      Comm& cm = job->comms[static_cast<size_t>(it->second)];
      r.comm_id[i] = it->second;
      if (c.flags & cpath::kCommInter) cm.inter = true;
      if (c.flags & cpath::kCommInterSide1) cm.side1 = true;
      if ((c.flags & cpath::kCommWorldGroup) && c.size == np) cm.world_group = true;
      if (c.local_rank >= 0 && static_cast<size_t>(c.local_rank) < cm.world.size() &&
          static_cast<int32_t>(cm.world.size()) == c.size)
        cm.world[static_cast<size_t>(c.local_rank)] = rk;
    }
  }
  for (Comm& cm : job->comms) {
    // A partial job (ranks without a trace): a communicator with MPI_COMM_WORLD's group in its
    // order still has known members; others missing a member stay unknown.
    if (job->partial && cm.world_group)
      for (size_t i = 0; i < cm.world.size(); ++i)
        if (cm.world[i] < 0) cm.world[i] = static_cast<int32_t>(i);
    cm.complete = std::none_of(cm.world.begin(), cm.world.end(), [](int32_t w) { return w < 0; });
  }
  // Each side of an intercommunicator finds the other: the same key with the other side's mark.
  for (const auto& [k, id] : ids) {
    const size_t at = k.find("|s");
    if (at == std::string::npos || at + 2 >= k.size()) continue;
    std::string other = k;
    other[at + 2] = k[at + 2] == '0' ? '1' : '0';
    auto it = ids.find(other);
    if (it != ids.end()) job->comms[static_cast<size_t>(id)].remote = it->second;
  }
  // Topologies: every member recorded its own neighbour lists; a duplicate has its parent's.
  for (int rk = 0; rk < np; ++rk) {
    const Rank& r = job->ranks[static_cast<size_t>(rk)];
    const auto& recs = r.trace.comms;
    for (size_t i = 0; i < recs.size(); ++i) {
      const int32_t id = r.comm_id[i];
      if (id < 0) continue;
      const cpath::CommTopology* topo = nullptr;
      for (int32_t rec = static_cast<int32_t>(i); rec >= 0 && !topo;) {
        for (const cpath::CommTopology& tp : r.trace.topologies)
          if (tp.record == rec) topo = &tp;
        if (!(recs[static_cast<size_t>(rec)].flags & cpath::kCommDup)) break;
        const int32_t parent = recs[static_cast<size_t>(rec)].parent;
        rec = parent < rec ? parent : -1;
      }
      Comm& cm = job->comms[static_cast<size_t>(id)];
      const int32_t local = recs[i].local_rank;
      if (!topo || local < 0 || static_cast<size_t>(local) >= cm.world.size()) continue;
      if (cm.sources.size() != cm.world.size()) {
        cm.sources.assign(cm.world.size(), {});
        cm.destinations.assign(cm.world.size(), {});
        cm.topo_known.assign(cm.world.size(), 0);
      }
      cm.topo_known[static_cast<size_t>(local)] = 1;
      cm.sources[static_cast<size_t>(local)].clear();
      cm.destinations[static_cast<size_t>(local)].clear();
      for (int32_t l : topo->sources)
        if (l >= 0) cm.sources[static_cast<size_t>(local)].push_back(l);
      for (int32_t l : topo->destinations)
        if (l >= 0) cm.destinations[static_cast<size_t>(local)].push_back(l);
    }
  }
}

}  // namespace

namespace {

// The job-wide communicator of record `rec` on rank `r`, or null.
const Comm* comm_of(const Job& job, int r, int32_t rec) {
  const Rank& rk = job.ranks[static_cast<size_t>(r)];
  if (rec < 0 || static_cast<size_t>(rec) >= rk.comm_id.size()) return nullptr;
  const int32_t id = rk.comm_id[static_cast<size_t>(rec)];
  return id < 0 ? nullptr : &job.comms[static_cast<size_t>(id)];
}

int32_t member(const Comm& c, int32_t local) {
  if (!c.complete || local < 0 || static_cast<size_t>(local) >= c.world.size()) return -1;
  return c.world[static_cast<size_t>(local)];
}

}  // namespace

int32_t world_of(const Job& job, int r, int32_t rec, int32_t local) {
  const Comm* c = comm_of(job, r, rec);
  return c ? member(*c, local) : -1;
}

int32_t peer_world_of(const Job& job, int r, int32_t rec, int32_t peer) {
  const Comm* c = comm_of(job, r, rec);
  if (!c || (c->inter && c->remote < 0)) return -1;
  return member(c->inter ? job.comms[static_cast<size_t>(c->remote)] : *c, peer);
}

int32_t op_comm(Job* job, const Rank& r, const Op& o) {
  const int32_t id = o.comm >= 0 && static_cast<size_t>(o.comm) < r.comm_id.size() ? r.comm_id[static_cast<size_t>(o.comm)] : -1;
  if (id >= 0 && job->comms[static_cast<size_t>(id)].inter) {
    const Comm& c = job->comms[static_cast<size_t>(id)];
    const bool paired = o.kind == OpKind::Send || o.kind == OpKind::Recv || o.kind == OpKind::Peek || o.kind == OpKind::Coll;
    if (paired && c.complete && c.remote >= 0 && job->comms[static_cast<size_t>(c.remote)].complete)
      return std::min(id, c.remote);
    ++job->counts.intercomm;
    return -1;
  }
  if (id < 0 || !job->comms[static_cast<size_t>(id)].complete) {
    ++job->counts.unknown_comm;
    return -1;
  }
  return id;
}

void build_timelines(Job* job) {
  for (Rank& r : job->ranks) build_calls(r);
  unify_communicators(job);
  job->job_begin = INT64_MAX;  // stays so when no rank recorded MPI_Init: then no start-up segment
  for (const Rank& r : job->ranks)
    if (r.init != kNone) job->job_begin = std::min(job->job_begin, r.calls[r.init].b);
}

}  // namespace cpref
