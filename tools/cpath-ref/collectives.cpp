// Collective instances and their partner candidates (docs/pag-rules.md rule 4). The n-th
// collective a member calls on a communicator (blocking, non-blocking, persistent instance,
// communicator creation on the parent, collectives on its windows and files) is instance n of
// that communicator on every member; MPI_Init is one instance on MPI_COMM_WORLD. The candidates
// of member m, by pattern: all -> every member's posting call; one-to-all -> the root's (root:
// none); all-to-one -> root: every member's, others: none; scan -> local ranks <= m; exscan ->
// local ranks < m; neighbourhood -> m's in-neighbours in the topology. A member's own calls are
// never its partners, size-1 communicators have none. Instances are paired by their sequence
// number on the communicator, which counts the collectives made while recording was off (rule 8);
// the instances of an MPI-4 persistent collective by their start number on their init.
// On an intercommunicator whose two groups are known the instance spans both groups (side 0's
// members first): all -> every member of both groups; one-to-all -> in the receiving group (root
// >= 0, a rank of the other group) the member that passed MPI_ROOT, in the root's group none;
// all-to-one -> MPI_ROOT: every member of the other group, others: none. The what-if keeps such
// an instance's measured partner (incomplete for it).
#include <algorithm>
#include <cstdint>
#include <map>

#include "ref.h"

namespace cpref {

namespace {

// Whether a call polled MPI's progress engine: an Iprobe or Test-family call that found
// nothing, or a call that can block and spent kProgressWait or more inside MPI. Calls that
// never wait (never_waits: posts, collectives' too, inits, starts...) do not move a pending
// non-blocking collective (Open MPI 4.1 and MPICH 4.0).
bool polled_progress(const Call& c) {
  using K = cpath::CallKind;
  const cpath::CallInfo& ci = c.info();
  if (never_waits(c) || ci.kind == K::Gap || ci.kind == K::Init || ci.kind == K::Abort) return false;
  if (ci.flags & cpath::kCallTestLike) {
    if (ci.kind == K::Probe && !c.ev->flag && !(c.ev->flags & cpath::kFlagError)) return true;
    if (ci.kind == K::Complete && c.ev->list_count == 0) return true;
  }
  return c.e - c.b >= kProgressWait;
}

}  // namespace

void match_collectives(Job* job) {
  const int np = static_cast<int>(job->ranks.size());
  // communicator id -> sequence number -> local rank -> (world rank, op)
  std::map<int32_t, std::map<uint64_t, std::map<int32_t, std::pair<int, uint32_t>>>> inst;
  for (int rk = 0; rk < np; ++rk) {
    Rank& r = job->ranks[static_cast<size_t>(rk)];
    for (uint32_t i = 0; i < r.ops.size(); ++i) {
      const Op& o = r.ops[i];
      if (o.kind != OpKind::Coll) continue;
      const int32_t id = op_comm(job, r, o);
      if (id < 0) continue;
      const Comm& cm = job->comms[static_cast<size_t>(id)];
      int32_t local = r.trace.comms[static_cast<size_t>(o.comm)].local_rank;
      if (cm.inter) {
        // op_comm gave the id of side 0 or side 1, whichever is lower: members index the union.
        const int32_t mine = r.comm_id[static_cast<size_t>(o.comm)];
        const Comm& own = job->comms[static_cast<size_t>(mine)];
        if (own.side1) local += static_cast<int32_t>(job->comms[static_cast<size_t>(own.remote)].world.size());
      } else if (cm.world.size() <= 1) {
        continue;
      }
      // A persistent init's starts form a sequence of their own, and so do the collectives on
      // each window or file.
      const uint64_t key = o.init >= 0    ? (static_cast<uint64_t>(o.init) + 1) << 40 | o.seq
                           : o.object >= 0 ? 1ull << 63 | (static_cast<uint64_t>(o.object) + 1) << 40 | o.seq
                                           : o.seq;
      inst[id][key][local] = {rk, i};
    }
  }
  for (auto& [id, seqs] : inst) {
    const Comm& cm = job->comms[static_cast<size_t>(id)];
    // Intercommunicators: side 0 holds members [0, n0) of the union, side 1 [n0, n).
    const int32_t own = static_cast<int32_t>(cm.world.size());
    const int32_t other = cm.inter ? static_cast<int32_t>(job->comms[static_cast<size_t>(cm.remote)].world.size()) : 0;
    const int32_t n0 = cm.side1 ? other : own, n = own + other;
    for (auto& [seq, members] : seqs) {
      // Rule 4, progress: a non-blocking instance moves only as its members' MPI progresses
      // it. A member's first call after the last member's post that polled (polled_progress),
      // or else the call completing it, is where its progress resumed when it computed 100 us
      // or more after its post; any member may need any other's (trees: inner members wait
      // for their parents and children whatever the pattern). Not scans, neighbourhood or
      // intercommunicator instances. Only polls that began once the last member had posted:
      // before, nobody can complete the instance.
      std::vector<CallRef> resumed;
      int64_t last_post = INT64_MIN;
      if (!cm.inter) {
        for (auto& [m, who] : members) {
          const Rank& r = job->ranks[static_cast<size_t>(who.first)];
          const Op& o = r.ops[who.second];
          if (o.post != kNone) last_post = std::max(last_post, r.calls[o.post].b);
        }
        for (auto& [m, who] : members) {
          const Rank& r = job->ranks[static_cast<size_t>(who.first)];
          const Op& o = r.ops[who.second];
          if (o.post == kNone || o.done == kNone || o.done == o.post) continue;
          if (o.pattern == cpath::Pattern::Scan || o.pattern == cpath::Pattern::Exscan || o.pattern == cpath::Pattern::Neighbor) continue;
          uint32_t nx = o.done;
          for (uint32_t c = o.post + 1; c < o.done; ++c)
            if (r.calls[c].thread == r.calls[o.post].thread && r.calls[c].b >= last_post && polled_progress(r.calls[c])) {
              nx = c;
              break;
            }
          // Completed on another thread: that thread's call, whatever the posting thread did.
          int64_t computed = r.calls[nx].thread != r.calls[o.post].thread ? kProgressGap : 0;
          for (uint32_t x = nx; computed < kProgressGap && x != o.post && r.calls[x].prev != kNone; x = r.calls[x].prev)
            computed += std::max<int64_t>(0, r.calls[x].b - r.calls[r.calls[x].prev].e);
          if (computed >= kProgressGap) resumed.push_back(CallRef{who.first, nx});
        }
      }
      for (auto& [m, who] : members) {
        Rank& r = job->ranks[static_cast<size_t>(who.first)];
        Op& o = r.ops[who.second];
        std::vector<int32_t> from;
        bool known = true;  // the candidate set is known (a topology for neighbourhood collectives)
        if (cm.inter) {
          // The other group's members are [lo, hi) of the union.
          const int32_t lo = m < n0 ? n0 : 0, hi = m < n0 ? n : n0;
          if (o.pattern == cpath::Pattern::OneToAll) {
            if (o.root >= 0 && o.root < hi - lo) from.push_back(lo + o.root);
          } else if (o.pattern == cpath::Pattern::AllToOne) {
            if (o.root == cpath::kRankRoot)
              for (int32_t j = lo; j < hi; ++j) from.push_back(j);
          } else {
            for (int32_t j = 0; j < n; ++j) from.push_back(j);
          }
        } else switch (o.pattern) {
          case cpath::Pattern::OneToAll:
            if (m != o.root) from.push_back(o.root);
            break;
          case cpath::Pattern::AllToOne:
            if (m == o.root)
              for (int32_t j = 0; j < n; ++j) from.push_back(j);
            break;
          case cpath::Pattern::Scan:
            for (int32_t j = 0; j <= m; ++j) from.push_back(j);
            break;
          case cpath::Pattern::Exscan:
            for (int32_t j = 0; j < m; ++j) from.push_back(j);
            break;
          case cpath::Pattern::Neighbor:
            known = static_cast<size_t>(m) < cm.topo_known.size() && cm.topo_known[static_cast<size_t>(m)];
            if (known) from = cm.sources[static_cast<size_t>(m)];
            else ++job->counts.neighbour_without_topology;
            break;
          default:
            for (int32_t j = 0; j < n; ++j) from.push_back(j);
        }
        // Candidates come only from the members that recorded the instance; a member missing
        // one it waits for is counted (rule 4).
        bool complete = known;
        for (int32_t j : from) {
          if (j == m) {
            if (o.pattern != cpath::Pattern::Neighbor) o.own_in_set = true;  // never its own neighbour
            continue;
          }
          auto it = members.find(j);
          if (it == members.end()) {
            complete = false;
            continue;
          }
          const Op& other = job->ranks[static_cast<size_t>(it->second.first)].ops[it->second.second];
          o.cands.push_back({it->second.first, other.post});
        }
        if (!complete) ++job->counts.coll_missing;
        if (!cm.inter && (o.pattern == cpath::Pattern::OneToAll || o.pattern == cpath::Pattern::AllToOne ||
                          o.pattern == cpath::Pattern::Scan || o.pattern == cpath::Pattern::Exscan))
          for (const auto& [j, w] : members)
            if (j != m) o.others.push_back({w.first, job->ranks[static_cast<size_t>(w.first)].ops[w.second].post});
        // A neighbourhood member may wait for its out-neighbours too (its sends above the eager
        // limit wait for their receivers).
        if (o.pattern == cpath::Pattern::Neighbor && known)
          for (int32_t j : cm.destinations[static_cast<size_t>(m)]) {
            auto it = members.find(j);
            if (j != m && it != members.end())
              o.others.push_back({it->second.first, job->ranks[static_cast<size_t>(it->second.first)].ops[it->second.second].post});
          }
        // The product's what-if judges completeness per instance (every member of the
        // communicator recorded it), except for neighbourhood collectives where only the
        // member's in-neighbours matter.
        o.incomplete = cm.inter || (o.pattern == cpath::Pattern::Neighbor ? !complete : members.size() < static_cast<size_t>(n));
        // Every member's, its own included: the latest of all is the candidate, unless it is
        // the member's own (the product's reduction keeps only the latest).
        o.progress.insert(o.progress.end(), resumed.begin(), resumed.end());
      }
    }
  }
}

bool never_waits(const Call& c) {
  using K = cpath::CallKind;
  const cpath::CallInfo& ci = c.info();
  if (ci.flags & (cpath::kCallNonBlocking | cpath::kCallPersistent)) return true;
  if (ci.kind == K::Other) return !(ci.flags & cpath::kCallBufferFlush);
  return ci.kind == K::Start || ci.kind == K::RequestFree || ci.kind == K::Cancel || ci.kind == K::Rma || ci.kind == K::Pready ||
         ci.kind == K::Pcontrol;
}

CallRef progress_candidate(const Job& job, int rank, const Op& o) {
  CallRef best;
  int64_t bb = 0;
  for (const CallRef& x : o.progress) {
    const int64_t b = job.ranks[static_cast<size_t>(x.rank)].calls[x.call].b;
    if (!best.valid() || b > bb || (b == bb && x.rank < best.rank)) best = x, bb = b;
  }
  return best.rank == rank ? CallRef() : best;
}

}  // namespace cpref
