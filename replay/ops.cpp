#include "ops.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "send_modes.h"

namespace cpath {

namespace {

int32_t posted_source(const EventCore& e, int32_t actual) { return (e.flags & kFlagAnySource) ? kRankAnySource : actual; }
int32_t posted_tag(const EventCore& e, int32_t actual) { return (e.flags & kFlagAnyTag) ? kTagAny : actual; }

// An unsuccessful Iprobe/Improbe (a poll on its key, rule 5).
bool failed_probe(const TimelineEvent& te) {
  const CallInfo& ci = call_info(te.e.call);
  return ci.kind == CallKind::Probe && (ci.flags & kCallTestLike) && !te.e.flag && !(te.e.flags & kFlagError);
}

// Request handles whose emptied entries Builder::release keeps.
constexpr size_t kKeptHandles = 4096;

struct Builder {
  const Timeline& tl;
  OpTable t;
  struct Active {
    uint32_t op = 0;         // op index (non-persistent) or template event (persistent)
    bool persistent = false;
    bool active = false;     // persistent: started and not yet completed
    uint32_t instance = 0;   // persistent: op index of the current instance
    uint32_t also = ~0u;     // MPI_Isendrecv: the receive op its one request completes too
    uint32_t init_ord = kNoInit;  // persistent collective: which init on its communicator
  };
  // Live request handles. A handle can stand for several live requests at once: Open MPI
  // hands out one shared, already-complete request object for sends that finished
  // immediately. Completions then take the oldest request with that handle.
  std::unordered_map<uint64_t, std::vector<Active>> reqs;
  std::unordered_map<uint64_t, uint32_t> msgs;    // message handle -> op (from Mprobe)
  // Request handle -> the latest I/O op made on it (MPI_Grequest_start among them): an
  // MPI_Grequest_complete may begin after the call that completes the request began, when
  // the request is no longer live.
  std::unordered_map<uint64_t, uint32_t> io_ops;
  // Window / file handle -> the communicator record it was created on and its number among the
  // windows and files created there: collectives on windows and files (MPI_Win_fence,
  // MPI_File_write_all, ...) run on a sequence of their own per window or file (MPI orders
  // them per handle), paired under object_key.
  std::unordered_map<uint64_t, std::pair<int32_t, uint32_t>> objs;
  // (completing event, op) pairs, grouped by event at the end (counting sort).
  std::vector<std::pair<uint32_t, uint32_t>> done_pairs;
  // Buffered sends not yet waited for by an MPI_Buffer_detach (flush_buffered).
  std::vector<uint32_t> buffered;
  uint64_t flush_min = 0;  // the smaller eager limit: buffered sends up to it leave at once
  // Rule 8: collective calls so far per communicator record.
  std::vector<uint32_t> seq;
  // Rule 5, probes: first unsuccessful Iprobe/Improbe per (thread, communicator, posted
  // source, posted tag) since the last receive or found probe on that key.
  std::map<std::tuple<uint32_t, int32_t, int32_t, int32_t>, uint32_t> probe_polls;
  // Rule 5, requests: a polling loop repeats one list; it is looked at again only when some
  // request was posted, completed or freed since (epoch), or the list changed.
  uint64_t epoch = 0;
  struct LastPoll {
    const uint64_t* list = nullptr;  // Timeline::polls: a loop's calls share one stored list
    uint32_t count = 0;
    uint64_t epoch = ~0ull;
  };
  std::vector<LastPoll> last_poll;
  std::set<std::pair<uint32_t, uint32_t>> other_polled;  // (op, slot) already in other_thread_polls
  std::vector<uint32_t> first_polls;                       // by op (first_poll())

  // Rule 10: general active-target synchronisation, per window handle. A window's messages run
  // on the communicator it was created on under tags of its own (pscw_tag): its creation's
  // number on that communicator tells the windows of one communicator apart alike on every
  // member.
  struct Window {
    int32_t comm = -1;
    uint32_t ordinal = 0;
    std::vector<int32_t> targets;  // the open access epoch's group (MPI_Win_start)
    std::vector<uint32_t> waits;   // the open exposure epoch's receives of completes
  };
  std::unordered_map<uint64_t, Window> wins;
  std::unordered_map<int32_t, std::vector<int32_t>> local_of_world;  // per record, lazily

  // The recorded group of MPI_Win_post/start as local ranks of `rec`; *nocheck from the
  // assertion. A member outside the communicator leaves the epoch approximated (counted).
  std::vector<int32_t> pscw_group(uint32_t ev, int32_t rec, bool* nocheck) {
    const EventCore& e = tl.ev[ev].e;
    std::vector<int32_t> out;
    *nocheck = false;
    if (!(call_info(e.call).fields & kField_reqlist) || e.list_count == 0) return out;
    *nocheck = tl.reqlists[e.list_begin] & 1;
    const auto& ct = tl.trace->comm_table;
    auto it = local_of_world.find(rec);
    if (it == local_of_world.end()) {
      std::vector<int32_t> inv(static_cast<size_t>(ct.world_size > 0 ? ct.world_size : 0), -1);
      if (known_group(rec)) {
        const auto& g = ct.groups[static_cast<size_t>(ct.group[static_cast<size_t>(rec)])];
        for (size_t l = 0; l < g.size(); ++l)
          if (g[l] >= 0 && static_cast<size_t>(g[l]) < inv.size()) inv[static_cast<size_t>(g[l])] = static_cast<int32_t>(l);
      }
      it = local_of_world.emplace(rec, std::move(inv)).first;
    }
    for (uint32_t k = 1; k < e.list_count; ++k) {
      const uint64_t w = tl.reqlists[e.list_begin + k];
      const int32_t l = w < it->second.size() ? it->second[static_cast<size_t>(w)] : -1;
      if (l < 0) ++t.rma_sync_local;
      else out.push_back(l);
    }
    return out;
  }

  // done_here: the call completes the op too (all but the exposure epoch's receives).
  uint32_t pscw_op(uint32_t ev, OpKind kind, const Window& w, int32_t peer, bool complete, bool done_here) {
    Op o;
    o.kind = kind;
    o.post = ev;
    o.args = ev;
    o.comm = w.comm;
    o.peer = peer;
    o.tag = pscw_tag(w.ordinal, complete);
    o.mode = kind == OpKind::Send ? SendMode::Buffered : SendMode::None;
    if (done_here) o.done = ev;
    const uint32_t id = add(o);
    if (done_here) done_by(ev, id);
    return id;
  }

  // Post and complete are messages that never wait (both MPIs return at once); start waits
  // for every target's post and wait (or a successful test) for every origin's complete:
  // Open MPI 4.1 and MPICH 4.0 both waited there, 100 ms for a late post and 80 ms for a late
  // complete, and not in MPI_Win_complete.
  void pscw(uint32_t i, const CallInfo& ci) {
    const EventCore& e = tl.ev[i].e;
    if (e.flags & kFlagError) return;
    auto it = wins.find(args_of(i).obj);
    if (it == wins.end()) {  // a window created while not recording, or never seen
      ++t.rma_sync_local;
      return;
    }
    Window& w = it->second;
    bool nocheck = false;
    if (ci.flags & kCallPscwPost) {
      const std::vector<int32_t> g = pscw_group(i, w.comm, &nocheck);
      for (int32_t origin : g) {
        if (!nocheck) pscw_op(i, OpKind::Send, w, origin, false, true);
        w.waits.push_back(pscw_op(i, OpKind::Recv, w, origin, true, false));
      }
    } else if (ci.flags & kCallPscwStart) {
      w.targets = pscw_group(i, w.comm, &nocheck);
      if (!nocheck)
        for (int32_t target : w.targets) pscw_op(i, OpKind::Recv, w, target, false, true);
    } else if (ci.flags & kCallPscwComplete) {
      for (int32_t target : w.targets) pscw_op(i, OpKind::Send, w, target, true, true);
      w.targets.clear();
    } else if ((ci.flags & kCallTestLike) && !e.flag) {
      // An unsuccessful MPI_Win_test polls the exposure epoch's completes (rule 5).
      if (!w.waits.empty()) t.win_tests.emplace_back(i, w.ordinal, w.comm);
      for (uint32_t op : w.waits) note_poll(op, i, 0);
    } else {
      for (uint32_t op : w.waits) {
        t.ops[op].done = i;
        done_by(i, op);
      }
      w.waits.clear();
    }
  }

  uint16_t win_free_call_ = 0;

  explicit Builder(const Timeline& timeline) : tl(timeline) {
    for (unsigned c = 1; c < kNumCalls; ++c)
      if (!std::strcmp(kCallInfo[c].name, "MPI_Win_free")) win_free_call_ = static_cast<uint16_t>(c);
    if (tl.trace) {
      const EagerLimits lim = eager_limits_of(*tl.trace);
      flush_min = std::min(lim.intra, lim.inter);
    }
    done_pairs.reserve(timeline.ev.size());
    // Most events post at most one op: sized once, the table is never copied while it grows
    // (a doubling copy held old and new at once). Pages reserved but never filled cost no memory.
    t.ops.reserve(timeline.ev.size());
    seq.assign(tl.trace->comms.size(), 0);
    t.persistent_starts.assign(tl.trace->comms.size(), {});
    t.object_counts.assign(tl.trace->comms.size(), {});
    last_poll.resize(tl.trace->threads.size());
  }

  void done_by(uint32_t ev, uint32_t op) { done_pairs.emplace_back(ev, op); }

  // MPI_Buffer_detach at event d waits for the buffered sends posted since the previous one
  // (a persistent one's instance: once started). Each gets a flush op the detach completes.
  void flush_buffered(uint32_t d) {
    size_t keep = 0;
    for (uint32_t b : buffered) {
      const Op& s = t.ops[b];
      if (s.post == kNoEvent || s.post >= d) {
        buffered[keep++] = b;
        continue;
      }
      // At or below every eager limit it left at once: no flush op, which could never get a
      // candidate (its receiver judges the size) and would cost a Bsend-heavy loop an op each.
      if (op_bytes(tl, s) <= flush_min) continue;
      Op f;
      f.kind = OpKind::Flush;
      f.post = f.done = d;
      f.args = s.args;
      f.comm = s.comm;
      f.peer = s.peer;
      f.tag = s.tag;
      f.mode = SendMode::Buffered;
      const uint32_t fo = add(f);
      done_by(d, fo);
      t.flushes.emplace_back(b, fo);
    }
    buffered.resize(keep);
  }

  bool known_group(int32_t rec) const {
    const auto& g = tl.trace->comm_table.group;
    return rec >= 0 && static_cast<size_t>(rec) < g.size() && g[static_cast<size_t>(rec)] >= 0;
  }
  bool inter(int32_t rec) const {
    return rec >= 0 && static_cast<size_t>(rec) < tl.trace->comms.size() &&
           (tl.trace->comms[static_cast<size_t>(rec)].flags & kCommInter);
  }

  // init_ord: a persistent collective's instance, which of the inits on its communicator.
  uint32_t add(Op o, uint32_t init_ord = kNoInit) {
    o.persistent = init_ord != kNoInit;
    // (Rule 10's messages are buffered sends of the model, not in the program's buffer.)
    if (o.kind == OpKind::Send && o.mode == SendMode::Buffered && !is_pscw_tag(o.tag))
      buffered.push_back(static_cast<uint32_t>(t.ops.size()));
    if (o.kind != OpKind::Other && o.kind != OpKind::Flush) {
      // Rule 9: an operation that cannot be placed is counted once, here.
      // Point-to-point and collectives on an intercommunicator whose two groups are known are
      // matched like any others (collectives over the union of both groups, rule 4).
      const bool paired = o.kind == OpKind::Send || o.kind == OpKind::Recv || o.kind == OpKind::Peek ||
                          o.kind == OpKind::Collective;
      if (inter(o.comm)) {
        if (!paired || !tl.trace->comm_table.peers_known(static_cast<size_t>(o.comm))) ++t.intercomm_ops;
      } else if (!known_group(o.comm)) {
        ++t.unknown_comm;
      }
    }
    if (o.kind == OpKind::Collective && o.comm >= 0 && static_cast<size_t>(o.comm) < seq.size()) {
      if (o.on_object) {
        const uint32_t object = o.seq;  // op_from_args: which window or file of the record
        o.seq = t.object_counts[static_cast<size_t>(o.comm)][object]++;
        t.object_ords.emplace_back(static_cast<uint32_t>(t.ops.size()), object);
      } else if (init_ord == kNoInit) {
        o.seq = seq[static_cast<size_t>(o.comm)]++;
      } else {
        auto& starts = t.persistent_starts[static_cast<size_t>(o.comm)];
        if (init_ord < starts.size()) o.seq = starts[init_ord]++;  // the init's communicator
      }
    }
    if (o.persistent) t.init_ords.emplace_back(static_cast<uint32_t>(t.ops.size()), init_ord);
    t.ops.push_back(o);
    return static_cast<uint32_t>(t.ops.size() - 1);
  }

  // Handles: only while the timeline still has them (build_ops runs before release_args).
  EventArgs args_of(uint32_t ev) const { return tl.args[ev]; }
  bool inter_known(int32_t newcomm) const {
    return newcomm > 0 && static_cast<size_t>(newcomm) <= tl.trace->comms.size() &&
           (tl.trace->comms[static_cast<size_t>(newcomm) - 1].flags & kCommInterKnown);
  }

  Op op_from_args(uint32_t ev, uint32_t post) {
    const TimelineEvent& te = tl.ev[ev];
    const CallInfo& ci = call_info(te.e.call);
    Op o;
    o.post = post;
    o.args = ev;
    o.comm = te.comm;
    if ((ci.fields & kField_obj) && !(ci.fields & kField_comm)) {
      auto it = objs.find(args_of(ev).obj);
      o.comm = it != objs.end() ? it->second.first : -1;
      if (it != objs.end() && ci.kind == CallKind::Collective) {
        o.on_object = true;
        o.seq = it->second.second;  // the object, until add() numbers the collective
      }
    }
    o.mode = ci.mode;
    o.pattern = ci.pattern;
    o.peer = te.e.peer;
    o.tag = te.e.tag;
    switch (ci.kind) {
      case CallKind::Send: o.kind = OpKind::Send; break;
      case CallKind::Recv: o.kind = OpKind::Recv; break;
      case CallKind::Collective:
        o.kind = OpKind::Collective;
        o.no_data = (ci.fields & kField_bytes) && !(ci.fields & kField_obj) && ci.pattern != Pattern::Neighbor &&
                    tl.bytes(ev) == 0;
        break;
      case CallKind::CommNew:
        o.kind = OpKind::Collective;
        o.pattern = Pattern::All;
        if (ci.flags & kCallGroupOnly) {
          // Only the new group's members call (MPI_Comm_create_group, _from_group): instance 0
          // of the new communicator, over its members, who wait for each other (both MPIs
          // agree on a context id among them: a member 50 ms late held the others 50 ms).
          const int32_t nc = args_of(ev).newcomm;
          if (nc > 0 && static_cast<size_t>(nc) <= tl.trace->comms.size()) o.comm = nc - 1;
          else o.kind = OpKind::Other;
        }
        if (ci.flags & kCallInter) {
          // An intercommunicator between two groups of this job: the first instance on it, over
          // both groups (Open MPI agrees on its context id by an allreduce over both, MPICH's
          // leaders exchange after their groups' allreduce and broadcast back: every member
          // waits for every other). To another job's processes (spawn, connect, accept) the
          // wait is for processes outside the trace: this job's own time, rightly local.
          const int32_t nc = args_of(ev).newcomm;
          if (inter_known(nc)) o.comm = nc - 1;
          else o.kind = OpKind::Other;
        }
        break;
      default: o.kind = OpKind::Other; break;
    }
    return o;
  }

  // Rule 2's request handles: a handle exists from the end of the call that returned it (no
  // thread can name it before), and a completing call releases it from its begin, which is the
  // order events are read in. So a bind waits for the first event that began at or after its
  // call's end. MPIs hand a freed handle out again at once: a thread descheduled inside its
  // MPI_Irecv got the handle another thread's MPI_Wait freed meanwhile, and binding at the
  // Irecv's begin put the two threads' receives under one handle in the wrong order, so each
  // Wait completed the other's receive (MPICH's threads/pt2pt/multisend4: 463 of 5000
  // receives, 7 clock-condition violations on one clock; probe cp_probe_handle_reuse).
  struct PendingBind {
    int64_t end;
    uint32_t ev;
    uint64_t h;
    Active a;
  };
  std::vector<PendingBind> pending;
  uint32_t cur = 0;
  static bool later(const PendingBind& x, const PendingBind& y) { return x.end != y.end ? x.end > y.end : x.ev > y.ev; }
  void bind(uint64_t h, const Active& a) {
    pending.push_back({tl.ev[cur].end, cur, h, a});
    std::push_heap(pending.begin(), pending.end(), later);
  }
  void flush_binds(int64_t upto) {
    while (!pending.empty() && pending.front().end <= upto) {
      std::pop_heap(pending.begin(), pending.end(), later);
      const PendingBind pb = pending.back();
      pending.pop_back();
      bind_now(pb.h, pb.a);
    }
  }
  void bind_now(uint64_t h, const Active& a) {
    ++epoch;
    auto& v = reqs[h];
    if (a.persistent) v.clear();
    v.push_back(a);
  }

  void release(std::unordered_map<uint64_t, std::vector<Active>>::iterator it) {
    ++epoch;
    it->second.erase(it->second.begin());
    // An MPI reuses a few request objects over and over: the emptied entry (read as "no live
    // request") stays for the handle's next request instead of a map node and a vector
    // allocated and freed per request (bind and release were a third of build_ops). Only a
    // program with ever new handles makes the map shed its empty entries.
    if (it->second.empty() && reqs.size() > kKeptHandles) reqs.erase(it);
  }

  // OpTable::first_polls while the ops are made: by op, grown to the ops made when one is polled.
  uint32_t& first_poll(uint32_t op) {
    if (op >= first_polls.size()) first_polls.resize(t.ops.size(), kNoEvent);
    return first_polls[op];
  }

  void note_poll(uint32_t op, uint32_t ev, uint64_t h) {
    uint32_t& fp = first_poll(op);
    if (fp == kNoEvent) {
      fp = ev;
      if (h) t.poll_reqs.emplace_back(op, h);
      return;
    }
    const uint32_t slot = tl.slot(ev);
    if (tl.slot(fp) != slot && other_polled.insert({op, slot}).second)
      t.other_thread_polls.emplace_back(op, ev);
  }

  // Requests a Test-family call polled and did not complete (rule 5).
  void polls_of(uint32_t i) {
    uint32_t n = 0;
    const uint64_t* hs = tl.polls(i, &n);
    if (!n) return;
    const TimelineEvent& te = tl.ev[i];
    LastPoll& lp = last_poll[tl.slot(i)];
    if (lp.list == hs && lp.count == n && lp.epoch == epoch) return;  // nothing new
    lp = LastPoll{hs, n, epoch};
    for (uint32_t k = 0; k < n; ++k) {
      const uint64_t h = hs[k];
      if (!h) continue;
      bool completed_here = false;
      for (uint32_t c = 0; c < te.e.list_count && !completed_here; ++c)
        completed_here = tl.completions[te.e.list_begin + c].req == h;
      if (completed_here) continue;
      auto it = reqs.find(h);
      if (it == reqs.end()) continue;
      for (const Active& a : it->second) {
        if (a.persistent && !a.active) continue;
        const uint32_t op = a.persistent ? a.instance : a.op;
        if (t.ops[op].done == kNoEvent) note_poll(op, i, h);
        // MPI_Isendrecv: the request's receive is polled as much as its send.
        if (!a.persistent && a.also != ~0u && t.ops[a.also].done == kNoEvent) note_poll(a.also, i, h);
      }
    }
  }


  // A blocking receive or a probe that found its message ends the polling on its key.
  void probe_consumed(uint32_t op, uint32_t ev, int32_t src, int32_t tag) {
    const TimelineEvent& te = tl.ev[ev];
    auto it = probe_polls.find({tl.slot(ev), te.comm, posted_source(te.e, src), posted_tag(te.e, tag)});
    if (it == probe_polls.end()) return;
    first_poll(op) = it->second;
    probe_polls.erase(it);
  }

  void complete(uint32_t ev, uint64_t h, const Completion* c) {
    auto it = reqs.find(h);
    if (it == reqs.end() || it->second.empty()) {
      ++t.unknown_requests;
      return;
    }
    Active& a = it->second.front();
    uint32_t op;
    if (a.persistent) {
      if (!a.active) return;  // completing an inactive persistent request is a no-op
      op = a.instance;
      a.active = false;
      ++epoch;
    } else {
      op = a.op;
    }
    Op& o = t.ops[op];
    const bool no_free = call_info(tl.ev[ev].e.call).flags & kCallNoFree;
    if (o.done != kNoEvent) {
      // Completed earlier by MPI_Request_get_status: this call frees the handle, which the MPI
      // hands to the program's next request (a stale entry in front would take its completion).
      if (!a.persistent && !no_free) release(it);
      return;
    }
    o.done = ev;
    ++epoch;
    if (!a.persistent && a.also != ~0u) {
      Op& r = t.ops[a.also];
      r.done = ev;
      if (c && (tl.ev[r.args].e.flags & kFlagAnySource)) r.peer = c->source;
      if (c && (tl.ev[r.args].e.flags & kFlagAnyTag)) r.tag = c->tag;
      done_by(ev, a.also);
    }
    if (c) {
      o.cancelled = c->cancelled;
      const TimelineEvent& args = tl.ev[o.args];
      if (o.kind == OpKind::Recv) {
        if (args.e.flags & kFlagAnySource) o.peer = c->source;
        if (args.e.flags & kFlagAnyTag) o.tag = c->tag;
      }
    }
    done_by(ev, op);
    if (!a.persistent && !no_free) release(it);
  }

  // `renamed`: the handle the program holds after the start (0 or h: still h). Open MPI hands
  // out a new one when the previous instance is still under way inside the library (a
  // buffered send's data); the instance's completion and the next start then name that.
  void start(uint32_t ev, uint64_t h, uint64_t renamed = 0) {
    auto it = reqs.find(h);
    if (it == reqs.end() || it->second.empty() || !it->second.front().persistent) {
      ++t.unknown_requests;
      return;
    }
    Active& a = it->second.front();
    a.instance = add(op_from_args(a.op, ev), a.init_ord);
    a.active = true;
    ++epoch;
    if (renamed && renamed != h) {
      const Active moved = a;
      release(it);
      bind(renamed, moved);
    }
  }

  void apply_gap(const TimelineGap& g) {
    int32_t rec = g.comm;
    if (rec < 0 && g.obj) {
      auto it = objs.find(g.obj);
      if (it != objs.end() && it->second.first >= 0)
        t.object_counts[static_cast<size_t>(it->second.first)][it->second.second] += static_cast<uint32_t>(g.count);
      return;
    }
    // Calls on communicators libcpath never saw are lost with the pause (reported as such).
    if (rec >= 0 && static_cast<size_t>(rec) < seq.size()) seq[static_cast<size_t>(rec)] += static_cast<uint32_t>(g.count);
  }

  void run() {
    size_t next_gap = 0;
    for (uint32_t i = 0; i < tl.ev.size(); ++i) {
      while (next_gap < tl.gaps.size() && tl.gaps[next_gap].before <= i) apply_gap(tl.gaps[next_gap++]);
      const TimelineEvent& te = tl.ev[i];
      cur = i;
      flush_binds(te.begin);
      const EventCore& e = te.e;
      // Most calls carry a request handle and nothing else: the other arguments are looked up
      // only by the calls that have them.
      const uint64_t req = tl.args.req(i);
      const CallInfo& ci = call_info(e.call);
      const bool nonblocking = ci.flags & kCallNonBlocking;
      if (ci.flags & kCallBufferFlush) flush_buffered(i);
      if ((ci.flags & kCallGrequestComplete) && req && !(e.flags & kFlagError)) {
        auto it = io_ops.find(req);
        if (it != io_ops.end()) t.grequest_completes.emplace_back(it->second, i);
      }
      switch (ci.kind) {
        case CallKind::Send:
        case CallKind::Recv:
        case CallKind::Collective:
        case CallKind::Rma:
        case CallKind::Io:
        case CallKind::CommNew: {
          if ((ci.fields & kField_obj) && (ci.fields & kField_comm))
            if (const uint64_t obj = args_of(i).obj) {
              // On an unknown record (-1) no count is kept: its collectives are not paired.
              if (te.comm >= 0 && static_cast<size_t>(te.comm) < t.object_counts.size()) {
                auto& objects = t.object_counts[static_cast<size_t>(te.comm)];
                objs[obj] = {te.comm, static_cast<uint32_t>(objects.size())};
                objects.push_back(0);
              } else {
                objs[obj] = {-1, 0};
              }
            }
          if (ci.flags & kCallPersistent) {
            Active a{i, true, false, 0};
            // MPI-4: every member makes its persistent collective inits in the same order, so
            // the n-th on a communicator names the same operation on every member.
            if (ci.kind == CallKind::Collective && te.comm >= 0 && static_cast<size_t>(te.comm) < t.persistent_starts.size()) {
              auto& starts = t.persistent_starts[static_cast<size_t>(te.comm)];
              a.init_ord = static_cast<uint32_t>(starts.size());
              starts.push_back(0);
            }
            if (req) bind(req, a);
            break;
          }
          if (ci.kind == CallKind::Rma || ci.kind == CallKind::Io) {
            if (nonblocking && req) {
              const uint32_t op = add(op_from_args(i, i));
              bind(req, Active{op, false, false, 0});
              if (ci.kind == CallKind::Io) io_ops[req] = op;
            }
            break;
          }
          Op o = op_from_args(i, i);
          if (ci.kind == CallKind::Collective && (ci.fields & kField_obj) && (ci.fields & kField_comm))
            if (const uint64_t obj = args_of(i).obj) {
              Window w;  // the creation's number is the one add() gives it next
              w.comm = o.comm;
              w.ordinal = o.comm >= 0 && static_cast<size_t>(o.comm) < seq.size() ? seq[static_cast<size_t>(o.comm)] : 0;
              wins[obj] = std::move(w);
            }
          // A freed window's handle may be the next window's (MPICH reuses them): one created
          // while not recording must not take this one's communicator and tags.
          if (e.call == win_free_call_) wins.erase(args_of(i).obj);
          if (nonblocking) {
            const uint32_t id = add(o);
            if (req) bind(req, Active{id, false, false, 0});
            else ++t.unknown_requests;
          } else {
            o.done = i;
            const uint32_t id = add(o);
            done_by(i, id);
            if (o.kind == OpKind::Recv) probe_consumed(id, i, o.peer, o.tag);
          }
          break;
        }
        case CallKind::Sendrecv: {
          Op s = op_from_args(i, i);
          s.kind = OpKind::Send;
          s.mode = SendMode::Standard;
          Op r = s;
          r.kind = OpKind::Recv;
          const SecondPeer second = tl.second_peer(i);
          r.peer = second.peer;
          r.tag = second.tag;
          r.mode = SendMode::None;
          if (nonblocking) {
            // MPI_Isendrecv: a send and a receive posted here, both completed by its request.
            Active a{add(s), false, false, 0};
            a.also = add(r);
            if (req) bind(req, a);
            else ++t.unknown_requests;
            break;
          }
          s.done = i;
          r.done = i;
          done_by(i, add(s));
          const uint32_t id = add(r);
          done_by(i, id);
          probe_consumed(id, i, r.peer, r.tag);
          break;
        }
        case CallKind::Pready: {
          // A partitioned send's data can arrive only once its last partition is ready: the
          // latest MPI_Pready* of the active instance is where the receiver waits for it.
          // Threads mark partitions ready while another thread already waits for the request
          // (MPI-4's use of partitioned sends): that MPI_Wait began first, so it was read
          // first and completed the instance, but it cannot have returned before the last
          // MPI_Pready began, which still counts while the completing call has not ended.
          auto it = reqs.find(req);
          if (it == reqs.end() || it->second.empty()) break;
          const Active& a = it->second.front();
          if (!a.persistent || a.instance >= t.ops.size()) break;
          Op& o = t.ops[a.instance];
          if (o.kind != OpKind::Send || o.args != a.op) break;  // never started
          if (a.active || (o.done != kNoEvent && tl.ev[o.done].end > te.begin)) o.post = i;
          break;
        }
        case CallKind::Probe: {
          const bool matched = ci.flags & kCallMatchedProbe;
          const bool found = !(ci.flags & kCallTestLike) || e.flag;
          if (e.flags & kFlagError) break;
          if (!found) {
            // An unsuccessful Iprobe/Improbe: a poll on its (communicator, source, tag).
            probe_polls.emplace(std::make_tuple(tl.slot(i), te.comm, posted_source(e, e.peer), posted_tag(e, e.tag)), i);
            break;
          }
          Op o = op_from_args(i, i);
          o.kind = matched ? OpKind::Recv : OpKind::Peek;
          o.done = i;
          const uint32_t id = add(o);
          done_by(i, id);
          probe_consumed(id, i, o.peer, o.tag);
          if (matched && req) msgs[req] = id;
          break;
        }
        case CallKind::CommFree:
          // A freeing call with a pattern in the spec (MPI_Comm_disconnect, which waits for the
          // pending communication: Open MPI makes it a barrier, ranks waited 80 ms for a late
          // member; MPICH returned at once, which rule 4's members MPI did not synchronise covers)
          // is an instance of its communicator, unless that joins another job (spawn): then the
          // wait is for processes outside the trace, this job's own time. MPI_Comm_free has none.
          if (ci.pattern != Pattern::None && !(e.flags & kFlagError) && te.comm >= 0 &&
              (!inter(te.comm) || tl.trace->comm_table.peers_known(static_cast<size_t>(te.comm)))) {
            Op o = op_from_args(i, i);
            o.kind = OpKind::Collective;
            o.done = i;
            done_by(i, add(o));
          }
          break;
        case CallKind::Mrecv: {
          // The message was matched by its Mprobe; the receive itself is local. Imrecv also
          // creates a request whose completion is local too.
          auto it = msgs.find(req);
          uint32_t request_op = kNoEvent;
          if (const uint64_t req2 = args_of(i).req2) bind(req2, Active{request_op = add(op_from_args(i, i)), false, false, 0});
          if (it != msgs.end()) {
            t.mrecvs.push_back({it->second, OpTable::MatchedRecv{i, request_op}});
            msgs.erase(it);
          }
          break;
        }
        case CallKind::Start:
          if (ci.fields & kField_reqlist) {
            const bool renamed = e.flags & kFlagHandlesRenamed;
            const uint32_t n = renamed ? e.list_count / 2 : e.list_count;
            for (uint32_t k = 0; k < n; ++k)
              start(i, tl.reqlists[e.list_begin + k], renamed ? tl.reqlists[e.list_begin + n + k] : 0);
          } else {
            start(i, req, (ci.fields & kField_req2) ? args_of(i).req2 : 0);
          }
          break;
        case CallKind::Complete:
          if (ci.fields & kField_polls) polls_of(i);
          for (uint32_t k = 0; k < e.list_count; ++k) {
            const Completion& c = tl.completions[e.list_begin + k];
            complete(i, c.req, &c);
          }
          break;
        case CallKind::RequestFree: {
          auto it = reqs.find(req);
          if (it == reqs.end() || it->second.empty()) break;
          const Active& a = it->second.front();
          if (!a.persistent) {
            Op& o = t.ops[a.op];
            if (o.done == kNoEvent) {
              o.freed_active = true;
              ++t.freed_active;
            }
          } else if (a.active) {
            t.ops[a.instance].freed_active = true;
            ++t.freed_active;
          }
          release(it);
          break;
        }
        case CallKind::RmaSync:
          if (ci.flags & (kCallPscwPost | kCallPscwStart | kCallPscwComplete | kCallPscwWait)) pscw(i, ci);
          else ++t.rma_sync_local;  // passive target: lock, unlock, flush, sync
          break;
        case CallKind::Cancel:
        default:
          break;
      }
    }
    flush_binds(INT64_MAX);
    while (next_gap < tl.gaps.size()) apply_gap(tl.gaps[next_gap++]);
    t.coll_count = seq;
    for (const Op& o : t.ops)
      if (o.done == kNoEvent && !o.freed_active && o.kind != OpKind::Other) ++t.never_completed;
    for (uint32_t op = 0; op < first_polls.size(); ++op)
      if (first_polls[op] != kNoEvent) t.first_polls.emplace_back(op, first_polls[op]);
    std::vector<uint32_t>().swap(first_polls);
    std::sort(t.other_thread_polls.begin(), t.other_thread_polls.end());
    // In poll order, which is op order unless a loop polls a request posted after another's.
    if (!std::is_sorted(t.poll_reqs.begin(), t.poll_reqs.end())) std::sort(t.poll_reqs.begin(), t.poll_reqs.end());
    std::sort(t.mrecvs.begin(), t.mrecvs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::sort(t.flushes.begin(), t.flushes.end());
    // Pairs arrive in event order except for completions of earlier-posted requests; a
    // counting sort by event keeps each event's ops in the order they were found.
    t.done_begin.assign(tl.ev.size() + 1, 0);
    for (const auto& p : done_pairs) ++t.done_begin[p.first + 1];
    for (size_t i = 1; i < t.done_begin.size(); ++i) t.done_begin[i] += t.done_begin[i - 1];
    t.done_ops.resize(done_pairs.size());
    std::vector<uint32_t> fill(t.done_begin.begin(), t.done_begin.end() - 1);
    for (const auto& p : done_pairs) t.done_ops[fill[p.first]++] = p.second;
  }
};

}  // namespace

OpTable build_ops(const Timeline& tl) {
  Builder b(tl);
  b.run();
  return std::move(b.t);
}

bool never_waits(const CallInfo& ci) {
  if (ci.flags & (kCallNonBlocking | kCallPersistent)) return true;
  switch (ci.kind) {
    case CallKind::Start: case CallKind::RequestFree: case CallKind::Cancel: case CallKind::Rma:
    case CallKind::Pready: case CallKind::Pcontrol:
      return true;
    case CallKind::Other:
      return !(ci.flags & kCallBufferFlush);
    default:
      return false;
  }
}

bool progresses_mpi(const Timeline& tl, uint32_t x) {
  const TimelineEvent& te = tl.ev[x];
  const CallInfo& ci = call_info(te.e.call);
  if (never_waits(ci) || ci.kind == CallKind::Gap || ci.kind == CallKind::Init || ci.kind == CallKind::Abort) return false;
  if (failed_probe(te)) return true;
  if (ci.kind == CallKind::Complete && (ci.flags & kCallTestLike) && te.e.list_count == 0) return true;
  return te.end - te.begin >= kProgressWaitNs;
}

uint32_t first_poll_by(const OpTable& ops, const Timeline& tl, uint32_t op, uint32_t slot) {
  const uint32_t f = ops.first_poll(op);
  if (f == kNoEvent || tl.slot(f) == slot) return f;
  auto it = std::lower_bound(ops.other_thread_polls.begin(), ops.other_thread_polls.end(), std::make_pair(op, 0u));
  for (; it != ops.other_thread_polls.end() && it->first == op; ++it)
    if (tl.slot(it->second) == slot) return it->second;
  return kNoEvent;
}

bool polls_like(const OpTable& ops, const Timeline& tl, uint32_t op, uint32_t p, uint32_t x) {
  const TimelineEvent& a = tl.ev[p];
  const TimelineEvent& b = tl.ev[x];
  if (tl.slot(p) != tl.slot(x)) return false;
  if (call_info(a.e.call).flags & kCallPscwWait) {
    // Unsuccessful MPI_Win_test calls on the same window.
    const OpTable::WinTest* ta = ops.win_test(p);
    const OpTable::WinTest* tb = ops.win_test(x);
    return ta && tb && ta->ordinal == tb->ordinal && ta->comm == tb->comm;
  }
  if (failed_probe(a))
    return failed_probe(b) && a.comm == b.comm && posted_source(a.e, a.e.peer) == posted_source(b.e, b.e.peer) &&
           posted_tag(a.e, a.e.tag) == posted_tag(b.e, b.e.tag);
  const uint64_t h = ops.poll_req(op);
  const CallInfo& ci = call_info(b.e.call);
  if (!h || ci.kind != CallKind::Complete || !(ci.fields & kField_polls)) return false;
  for (uint32_t c = 0; c < b.e.list_count; ++c)
    if (tl.completions[b.e.list_begin + c].req == h) return false;  // completed here: not a poll
  uint32_t n = 0;
  const uint64_t* hs = tl.polls(x, &n);
  for (uint32_t k = 0; k < n; ++k)
    if (hs[k] == h) return true;
  return false;
}

}  // namespace cpath
