// Request linking: every send, receive, probe that found a message and collective instance of a
// rank becomes an op, with the call that posted it and the call that completed it. Request and
// message handles are followed as MPI defines them:
//  - a non-blocking call creates a request; Wait/Test-family calls complete it (their status
//    gives a wildcard receive its actual source and tag); MPI_Request_get_status completes it
//    without releasing it; MPI_Request_free releases it (active: completion time unknown);
//  - a persistent *_init creates an inactive request; every Start activates a new instance with
//    the *_init's arguments;
//  - Mprobe/Improbe that found a message is the receive (MPI_Mrecv only copies it out);
//  - a handle may stand for several live requests at once (Open MPI hands out one shared,
//    already complete request for sends that finished at once): completions take the oldest;
//  - a handle names its request from the end of the call that returned it, and a completion
//    lets it go at its begin (an MPI reuses a freed handle at once, and another thread's call
//    may have begun before and got it);
//  - window and file handles carry the communicator they were created on, for the collectives
//    called on them.
// Polls (rule 5): unsuccessful probes are kept per rank; unsuccessful Test-family calls are
// attached to the requests they listed (the trace stores each call's list, listed_requests).
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <tuple>

#include "ref.h"

namespace cpref {

namespace {

using cpath::CallKind;

// The requests a Test-family call listed (the trace stores the list per call; a polling loop's
// calls share one stored copy).
std::vector<uint64_t> listed_requests(const Call& c) {
  if (!(c.info().fields & cpath::kField_polls) || c.ev->poll_count == 0) return {};
  const std::vector<uint64_t>& all = c.th->polls;
  const size_t b = c.ev->poll_begin, n = c.ev->poll_count;
  if (b + n > all.size()) return {};
  return std::vector<uint64_t>(all.begin() + static_cast<long>(b), all.begin() + static_cast<long>(b + n));
}

struct Linker {
  Job& job;
  Rank& r;
  struct Live {
    uint32_t op;          // op (non-persistent) or the *_init call (persistent)
    bool persistent;
    bool active;          // persistent: started and not completed
    uint32_t instance;    // persistent: the op of the current instance
    int64_t init = -1;    // persistent collective: its init's number on the communicator
  };
  std::map<uint64_t, std::deque<Live>> reqs;
  std::map<uint64_t, uint32_t> msgs;
  std::map<uint64_t, uint32_t> io_requests;  // request handle -> the latest I/O op made on it
  std::map<uint32_t, uint32_t> isendrecv_recv;  // MPI_Isendrecv: send op -> its receive op
  std::map<uint64_t, std::pair<int32_t, int64_t>> objs;  // handle -> (record, its number there)
  std::map<int32_t, int64_t> objects_made;                 // per record
  std::map<std::pair<int32_t, int64_t>, uint64_t> object_seq;
  std::map<uint32_t, std::vector<uint32_t>> op_polls;  // op -> Test-family calls that polled it
  std::map<int32_t, uint64_t> seq;  // communicator record -> collectives called so far
  // MPI-4 pairs persistent collective instances by init (members may start different inits in
  // different orders): inits per communicator record, starts per (record, init).
  std::map<int32_t, int64_t> inits;
  std::map<std::pair<int32_t, int64_t>, uint64_t> starts;

  // Rule 10, per window handle: the access epoch's targets and the exposure epoch's
  // receives of the origins' completes.
  struct Win {
    int32_t comm = -1;
    uint64_t number = 0;
    std::vector<int32_t> targets;
    std::vector<uint32_t> waits;
  };
  std::map<uint64_t, Win> windows;

  Linker(Job& j, Rank& rank) : job(j), r(rank) {}

  // Rule 10: the tag of a window's post (or complete) messages. Written out here rather than
  // taken from replay/ops.h.
  static int32_t sync_tag(uint64_t number, bool complete) {
    return static_cast<int32_t>(-1048576LL - 2LL * static_cast<int64_t>(number % 536870912ULL) - (complete ? 1 : 0));
  }

  // The group MPI_Win_post/start recorded (its first entry: the MPI_MODE_NOCHECK bit, then
  // world ranks) as ranks of the window's communicator; members not in it are counted.
  std::vector<int32_t> epoch_group(const Call& c, int32_t rec, bool* nocheck) {
    std::vector<int32_t> out;
    const cpath::Event& e = *c.ev;
    *nocheck = false;
    if (!(c.info().fields & cpath::kField_reqlist) || e.list_count == 0) return out;
    *nocheck = c.th->reqlists[e.list_begin] == 1;
    const int32_t id = rec >= 0 && static_cast<size_t>(rec) < r.comm_id.size() ? r.comm_id[static_cast<size_t>(rec)] : -1;
    for (uint32_t k = 1; k < e.list_count; ++k) {
      const int64_t w = static_cast<int64_t>(c.th->reqlists[e.list_begin + k]);
      int32_t local = -1;
      if (id >= 0 && w >= 0)  // -1: outside MPI_COMM_WORLD (and unknown members are -1 too)
        for (size_t l = 0; l < job.comms[static_cast<size_t>(id)].world.size(); ++l)
          if (job.comms[static_cast<size_t>(id)].world[l] == w) local = static_cast<int32_t>(l);
      if (local < 0) ++job.counts.rma_sync;
      else out.push_back(local);
    }
    return out;
  }

  uint32_t sync_message(uint32_t call, OpKind kind, const Win& w, int32_t peer, bool complete) {
    Op o;
    o.kind = kind;
    o.post = call;
    o.args = call;
    o.comm = w.comm;
    o.peer = peer;
    o.tag = sync_tag(w.number, complete);
    o.mode = kind == OpKind::Send ? cpath::SendMode::Buffered : cpath::SendMode::None;
    return add(o);
  }

  // Rule 10: MPI_Win_post sends each origin a message its MPI_Win_start waits for;
  // MPI_Win_complete sends each target one its MPI_Win_wait (or successful MPI_Win_test) waits
  // for. With MPI_MODE_NOCHECK (given at both ends) there is no post message.
  void active_target(uint32_t i) {
    const Call& c = r.calls[i];
    const cpath::Event& e = *c.ev;
    const uint32_t f = c.info().flags;
    if (e.flags & cpath::kFlagError) return;
    auto it = windows.find(e.obj);
    if (it == windows.end()) {
      ++job.counts.rma_sync;
      return;
    }
    Win& w = it->second;
    bool nocheck = false;
    if (f & cpath::kCallPscwPost) {
      for (int32_t origin : epoch_group(c, w.comm, &nocheck)) {
        if (!nocheck) done(i, sync_message(i, OpKind::Send, w, origin, false));
        w.waits.push_back(sync_message(i, OpKind::Recv, w, origin, true));
      }
    } else if (f & cpath::kCallPscwStart) {
      w.targets = epoch_group(c, w.comm, &nocheck);
      if (!nocheck)
        for (int32_t target : w.targets) done(i, sync_message(i, OpKind::Recv, w, target, false));
    } else if (f & cpath::kCallPscwComplete) {
      for (int32_t target : w.targets) done(i, sync_message(i, OpKind::Send, w, target, true));
      w.targets.clear();
    } else if ((f & cpath::kCallTestLike) && !e.flag) {
      for (uint32_t op : w.waits) op_polls[op].push_back(i);  // rule 5: a poll of the completes
    } else {
      for (uint32_t op : w.waits) done(i, op);
      w.waits.clear();
    }
  }

  uint32_t add(Op o) {
    // Rule 8: collectives are numbered per communicator as they are called, gaps included.
    if (o.kind != OpKind::Coll) o.object = -1;
    if (o.kind == OpKind::Coll && o.comm >= 0)
      o.seq = o.init >= 0 ? starts[{o.comm, o.init}]++ : o.object >= 0 ? object_seq[{o.comm, o.object}]++ : seq[o.comm]++;
    r.ops.push_back(o);
    return static_cast<uint32_t>(r.ops.size() - 1);
  }

  void done(uint32_t call, uint32_t op) {
    r.ops[op].done = call;
    r.done_at[call].push_back(op);
  }

  Op from_args(uint32_t args, uint32_t post) {
    const Call& c = r.calls[args];
    const cpath::Event& e = *c.ev;
    const cpath::CallInfo& ci = c.info();
    Op o;
    o.post = post;
    o.args = args;
    o.comm = c.comm;
    if ((ci.fields & cpath::kField_obj) && !(ci.fields & cpath::kField_comm)) {
      auto it = objs.find(e.obj);
      o.comm = it == objs.end() ? -1 : it->second.first;
      if (it != objs.end()) o.object = it->second.second;
    }
    o.peer = e.peer;
    o.tag = e.tag;
    o.any_source = e.flags & cpath::kFlagAnySource;
    o.any_tag = e.flags & cpath::kFlagAnyTag;
    o.bytes = e.bytes;
    o.mode = ci.mode;
    o.pattern = ci.pattern;
    o.root = e.root;
    switch (ci.kind) {
      case CallKind::Send: o.kind = OpKind::Send; break;
      case CallKind::Recv: o.kind = OpKind::Recv; break;
      case CallKind::Collective:
        o.kind = OpKind::Coll;
        // Rule 4: a collective that carries a payload (not a barrier, window, file or
        // neighbourhood one) and moves nothing on this member need not synchronise it.
        o.no_data = (ci.fields & cpath::kField_bytes) && !(ci.fields & cpath::kField_obj) &&
                    ci.pattern != cpath::Pattern::Neighbor && e.bytes == 0;
        break;
      case CallKind::CommNew:
        // Creation is a collective of the parent's members, except when only the new group
        // calls (Comm_create_group) or the result is an intercommunicator.
        if (!(ci.flags & (cpath::kCallGroupOnly | cpath::kCallInter))) {
          o.kind = OpKind::Coll;
          o.pattern = cpath::Pattern::All;
        }
        // Made by the new group's members only: instance 0 of the new communicator, over them.
        if ((ci.flags & cpath::kCallGroupOnly) && e.newcomm > 0 && static_cast<size_t>(e.newcomm) <= r.trace.comms.size()) {
          o.kind = OpKind::Coll;
          o.pattern = cpath::Pattern::All;
          o.comm = e.newcomm - 1;
        }
        // Creating an intercommunicator between two groups of this job is instance 0 of the new
        // intercommunicator, over both groups: every member waits for every other.
        if ((ci.flags & cpath::kCallInter) && e.newcomm > 0 && static_cast<size_t>(e.newcomm) <= r.trace.comms.size() &&
            (r.trace.comms[static_cast<size_t>(e.newcomm) - 1].flags & cpath::kCommInterKnown)) {
          o.kind = OpKind::Coll;
          o.pattern = cpath::Pattern::All;
          o.comm = e.newcomm - 1;
        }
        break;
      default: break;
    }
    return o;
  }

  // The oldest live request under the handle is gone (freed, completed, or renamed).
  void drop_front(std::map<uint64_t, std::deque<Live>>::iterator it) {
    it->second.pop_front();
    if (it->second.empty()) reqs.erase(it);
  }

  // A handle names its request from the end of the call that returned it: binds wait, keyed by
  // (that end, that call), until a call that began at or after the end is read (calls are read
  // in begin order, and a completion lets its handle go at its begin).
  std::multimap<std::pair<int64_t, uint32_t>, std::pair<uint64_t, Live>> waiting;
  uint32_t current = 0;

  void bind(uint64_t h, const Live& l) { waiting.emplace(std::make_pair(r.calls[current].e, current), std::make_pair(h, l)); }

  void bind_waiting_until(int64_t t) {
    while (!waiting.empty() && waiting.begin()->first.first <= t) {
      const auto [h, l] = waiting.begin()->second;
      waiting.erase(waiting.begin());
      auto& q = reqs[h];
      if (l.persistent) q.clear();
      q.push_back(l);
    }
  }

  void complete(uint32_t call, uint64_t h, const cpath::Completion* st, bool release) {
    auto it = reqs.find(h);
    if (it == reqs.end() || it->second.empty()) {
      ++job.counts.unknown_requests;
      return;
    }
    Live& l = it->second.front();
    uint32_t op;
    if (l.persistent) {
      if (!l.active) return;  // completing an inactive persistent request does nothing
      op = l.instance;
      l.active = false;
    } else {
      op = l.op;
    }
    Op& o = r.ops[op];
    if (o.done == kNone) {
      if (st) {
        o.cancelled = st->cancelled;
        if (o.kind == OpKind::Recv) {
          if (o.any_source) o.peer = st->source;
          if (o.any_tag) o.tag = st->tag;
        }
      }
      done(call, op);
      auto pair = isendrecv_recv.find(op);
      if (pair != isendrecv_recv.end()) {
        Op& rv = r.ops[pair->second];
        if (st && rv.any_source) rv.peer = st->source;
        if (st && rv.any_tag) rv.tag = st->tag;
        done(call, pair->second);
      }
    }
    if (release && !l.persistent) drop_front(it);
  }

  // new_h: the handle the program holds after the call, when the MPI replaced h (Open MPI
  // does for an instance still under way inside it); 0 otherwise. The request lives on under
  // new_h: its completion and its next start name that.
  void start(uint32_t call, uint64_t h, uint64_t new_h) {
    auto it = reqs.find(h);
    if (it == reqs.end() || it->second.empty() || !it->second.front().persistent) {
      ++job.counts.unknown_requests;
      return;
    }
    Live& l = it->second.front();
    Op o = from_args(l.op, call);
    o.init = l.init;
    l.instance = add(o);
    l.active = true;
    if (new_h != 0 && new_h != h) {
      const Live kept = l;
      drop_front(it);
      bind(new_h, kept);
    }
  }

  // The op a live handle stands for now, or kNone.
  uint32_t live_op(uint64_t h) const {
    auto it = reqs.find(h);
    if (it == reqs.end() || it->second.empty()) return kNone;
    const Live& l = it->second.front();
    if (l.persistent) return l.active ? l.instance : kNone;
    return l.op;
  }

  // Collectives made while recording was off, on a communicator or on a window or file.
  void apply_gap(const Gap& g) {
    int32_t rec = g.comm;
    if (rec < 0 && g.obj) {
      auto it = objs.find(g.obj);
      if (it != objs.end()) object_seq[it->second] += g.count;
      return;
    }
    if (rec >= 0) seq[rec] += g.count;
  }

  void run() {
    r.done_at.assign(r.calls.size(), {});
    size_t next_gap = 0;
    for (uint32_t i = 0; i < r.calls.size(); ++i) {
      while (next_gap < r.gaps.size() && r.gaps[next_gap].before <= i) apply_gap(r.gaps[next_gap++]);
      const Call& c = r.calls[i];
      current = i;
      bind_waiting_until(c.b);
      const cpath::Event& e = *c.ev;
      const cpath::CallInfo& ci = c.info();
      const bool nonblocking = ci.flags & cpath::kCallNonBlocking;
      // MPI_Grequest_complete: the call completing its generalized request waits for it, on
      // whichever thread of this rank it was made.
      // The request may no longer be live: the completing call can begin first.
      if ((ci.flags & cpath::kCallGrequestComplete) && e.req && !(e.flags & cpath::kFlagError)) {
        auto it = io_requests.find(e.req);
        if (it != io_requests.end()) r.ops[it->second].cands.push_back({r.trace.rank, i});
      }
      if (ci.flags & cpath::kCallBufferFlush) {
        // MPI_Buffer_detach returns once the buffer is empty: it waits for every buffered
        // send posted before it that no earlier detach waited for.
        const size_t n = r.ops.size();
        for (size_t k = 0; k < n; ++k) {
          if (r.ops[k].kind != OpKind::Send || r.ops[k].mode != cpath::SendMode::Buffered) continue;
          if (r.ops[k].tag <= -1048576) continue;  // rule 10's messages (sync_tag): not in the buffer
          if (r.ops[k].post == kNone || r.ops[k].post >= i || r.ops[k].flush != kNone) continue;
          Op f;
          f.kind = OpKind::Flush;
          f.post = i;
          f.args = r.ops[k].args;
          f.comm = r.ops[k].comm;
          f.peer = r.ops[k].peer;
          f.tag = r.ops[k].tag;
          f.bytes = r.ops[k].bytes;
          f.mode = cpath::SendMode::Buffered;
          const uint32_t fo = add(f);
          r.ops[k].flush = fo;
          done(i, fo);
        }
      }
      switch (ci.kind) {
        case CallKind::Send:
        case CallKind::Recv:
        case CallKind::Collective:
        case CallKind::Rma:
        case CallKind::Io:
        case CallKind::CommNew: {
          if ((ci.fields & cpath::kField_obj) && (ci.fields & cpath::kField_comm) && e.obj)
            objs[e.obj] = {c.comm, objects_made[c.comm]++};
          if (ci.flags & cpath::kCallPersistent) {
            Live l{i, true, false, 0};
            if (ci.kind == CallKind::Collective && c.comm >= 0) l.init = inits[c.comm]++;
            if (e.req) bind(e.req, l);
            break;
          }
          if (ci.kind == CallKind::Rma || ci.kind == CallKind::Io) {
            if (nonblocking && e.req) {
              Op o = from_args(i, i);
              o.kind = OpKind::Local;
              const uint32_t op = add(o);
              bind(e.req, Live{op, false, false, 0});
              if (ci.kind == CallKind::Io) io_requests[e.req] = op;
            }
            break;
          }
          const uint32_t op = add(from_args(i, i));
          // A window: its creation's number among its communicator's collectives names it
          // alike on every member (rule 10).
          if (ci.kind == CallKind::Collective && (ci.fields & cpath::kField_obj) && (ci.fields & cpath::kField_comm) && e.obj)
            windows[e.obj] = Win{r.ops[op].comm, r.ops[op].seq, {}, {}};
          // MPICH hands a freed window's handle to the next window.
          if (!std::strcmp(ci.name, "MPI_Win_free")) windows.erase(e.obj);
          if (!nonblocking) {
            done(i, op);
          } else if (e.req) {
            bind(e.req, Live{op, false, false, 0});
          } else {
            ++job.counts.unknown_requests;
          }
          break;
        }
        case CallKind::Sendrecv: {
          Op s = from_args(i, i);
          s.kind = OpKind::Send;
          s.mode = cpath::SendMode::Standard;
          s.any_source = s.any_tag = false;
          Op rv = from_args(i, i);
          rv.kind = OpKind::Recv;
          rv.mode = cpath::SendMode::None;
          rv.peer = e.peer2;
          rv.tag = e.tag2;
          rv.bytes = 0;
          if (nonblocking) {  // MPI_Isendrecv: both halves complete with its request
            const uint32_t so = add(s);
            isendrecv_recv[so] = add(rv);
            if (e.req) bind(e.req, Live{so, false, false, 0});
            else ++job.counts.unknown_requests;
            break;
          }
          done(i, add(s));
          done(i, add(rv));
          break;
        }
        case CallKind::Pready: {
          // Partitioned send: its data leaves with the last partition marked ready, also when
          // another thread's MPI_Wait on it began earlier and had not returned yet.
          uint32_t op = live_op(e.req);
          if (op == kNone) {
            auto it = reqs.find(e.req);
            if (it != reqs.end() && !it->second.empty() && it->second.front().persistent) {
              const Live& l = it->second.front();
              const uint32_t last = l.instance;
              if (last < r.ops.size() && r.ops[last].args == l.op && r.ops[last].done != kNone &&
                  r.calls[r.ops[last].done].e > c.b)
                op = last;
            }
          }
          if (op != kNone && r.ops[op].kind == OpKind::Send) r.ops[op].post = i;
          break;
        }
        case CallKind::Probe: {
          if (e.flags & cpath::kFlagError) break;
          const bool found = !(ci.flags & cpath::kCallTestLike) || e.flag;
          if (!found) {
            r.probe_polls.push_back(ProbePoll{i, c.comm, (e.flags & cpath::kFlagAnySource) ? -1 : e.peer,
                                              (e.flags & cpath::kFlagAnyTag) ? -1 : e.tag});
            break;
          }
          Op o = from_args(i, i);
          o.kind = (ci.flags & cpath::kCallMatchedProbe) ? OpKind::Recv : OpKind::Peek;
          const uint32_t op = add(o);
          done(i, op);
          if (o.kind == OpKind::Recv && e.req) msgs[e.req] = op;
          break;
        }
        case CallKind::CommFree: {
          // A freeing call with a pattern (MPI_Comm_disconnect): a collective of its
          // communicator's members (Open MPI's is a barrier), unless the communicator joins
          // another job (spawn, connect).
          if (ci.pattern == cpath::Pattern::None || (e.flags & cpath::kFlagError) || c.comm < 0) break;
          const auto& rec = r.trace.comms[static_cast<size_t>(c.comm)];
          if ((rec.flags & cpath::kCommInter) && !(rec.flags & cpath::kCommInterKnown)) break;
          Op o = from_args(i, i);
          o.kind = OpKind::Coll;
          done(i, add(o));
          break;
        }
        case CallKind::Mrecv: {
          uint32_t local = kNone;
          if (e.req2) {
            Op o = from_args(i, i);
            o.kind = OpKind::Local;
            local = add(o);
            bind(e.req2, Live{local, false, false, 0});
          }
          auto m = msgs.find(e.req);
          if (m != msgs.end()) {
            r.ops[m->second].mrecv = i;
            r.ops[m->second].mrecv_op = local;
            msgs.erase(m);
          }
          break;
        }
        case CallKind::Start:
          if (ci.fields & cpath::kField_reqlist) {
            // With the flag the list is the handles before the call, then after it.
            const uint32_t n = (e.flags & cpath::kFlagHandlesRenamed) ? e.list_count / 2 : e.list_count;
            for (uint32_t k = 0; k < n; ++k)
              start(i, c.th->reqlists[e.list_begin + k], n != e.list_count ? c.th->reqlists[e.list_begin + n + k] : 0);
          } else {
            start(i, e.req, e.req2);
          }
          break;
        case CallKind::Complete: {
          const bool release = !(ci.flags & cpath::kCallNoFree);
          // Rule 5: the requests it listed and did not complete were polled (all live requests
          // a listed handle stands for); a handle it completed is not a poll.
          std::vector<uint64_t> completed;
          for (uint32_t k = 0; k < e.list_count; ++k) completed.push_back(c.th->completions[e.list_begin + k].req);
          for (uint64_t h : listed_requests(c)) {
            if (!h || std::find(completed.begin(), completed.end(), h) != completed.end()) continue;
            auto it = reqs.find(h);
            if (it == reqs.end()) continue;
            for (const Live& l : it->second) {
              if (l.persistent && !l.active) continue;
              const uint32_t op = l.persistent ? l.instance : l.op;
              if (r.ops[op].done == kNone) op_polls[op].push_back(i);
              // MPI_Isendrecv: one request stands for the send and its receive, polled alike.
              if (l.persistent) continue;
              auto pair = isendrecv_recv.find(l.op);
              if (pair != isendrecv_recv.end() && r.ops[pair->second].done == kNone) op_polls[pair->second].push_back(i);
            }
          }
          for (uint32_t k = 0; k < e.list_count; ++k) {
            const cpath::Completion& st = c.th->completions[e.list_begin + k];
            complete(i, st.req, &st, release);
          }
          break;
        }
        case CallKind::RequestFree: {
          auto it = reqs.find(e.req);
          if (it == reqs.end() || it->second.empty()) break;
          const Live& l = it->second.front();
          const uint32_t op = l.persistent ? (l.active ? l.instance : kNone) : l.op;
          // Counted where it matters, if at all: matching.cpp (rule 9).
          if (op != kNone && r.ops[op].done == kNone) r.ops[op].freed = true;
          drop_front(it);
          break;
        }
        case CallKind::RmaSync:
          if (ci.flags & (cpath::kCallPscwPost | cpath::kCallPscwStart | cpath::kCallPscwComplete | cpath::kCallPscwWait))
            active_target(i);
          else
            ++job.counts.rma_sync;
          break;
        default:
          break;
      }
    }
    bind_waiting_until(INT64_MAX);
    collect_polls();
  }

  // Rule 5: each op's first unsuccessful poll by the thread of its completing call.
  void collect_polls() {
    for (const auto& [op, calls] : op_polls) {
      Op& o = r.ops[op];
      if (o.done == kNone) continue;
      for (uint32_t p : calls)  // in call order
        if (p > o.post && p < o.done && r.calls[p].thread == r.calls[o.done].thread) o.polls.push_back(p);
      if (!o.polls.empty()) o.first_poll = o.polls.front();
    }
    // Probe loops: the first unsuccessful probe of the same thread on the same (communicator,
    // posted source, posted tag) since the last blocking receive or found probe on that key
    // (Irecv is not one: its message is taken when it completes, by whatever call).
    std::map<std::tuple<uint32_t, int32_t, int32_t, int32_t>, std::vector<uint32_t>> pending;
    size_t next = 0;
    for (uint32_t i = 0; i < r.calls.size(); ++i) {
      const Call& c = r.calls[i];
      if (next < r.probe_polls.size() && r.probe_polls[next].call == i) {
        const ProbePoll& p = r.probe_polls[next++];
        pending[std::make_tuple(c.thread, p.comm, p.source, p.tag)].push_back(i);
        continue;
      }
      for (uint32_t op : r.done_at[i]) {
        Op& o = r.ops[op];
        if ((o.kind != OpKind::Recv && o.kind != OpKind::Peek) || o.args != i) continue;
        const int32_t src = o.any_source ? -1 : o.peer, tag = o.any_tag ? -1 : o.tag;
        auto it = pending.find({c.thread, o.comm, src, tag});
        if (it == pending.end()) continue;
        o.polls = std::move(it->second);
        o.first_poll = o.polls.front();
        pending.erase(it);
      }
    }
  }
};

}  // namespace

void link_requests(Job* job) {
  for (Rank& r : job->ranks) {
    Linker l(*job, r);
    l.run();
  }
}

}  // namespace cpref
