// The critical-path walk by pointer jumping (list ranking), in O(log H) collective rounds for a
// path with H hand-offs between ranks, instead of one latency-bound message per hand-off.
//
// 1. Local compression. From the begin vertex of any event, the path stays on this rank until
//    an end edge leads to another rank ("leave from the end of j") or it reaches the start-up.
//    One pass over the events, memoised (an event's chain continues at a lower event), gives
//    that exit for every begin vertex.
// 2. Nodes. A node is a begin vertex the path can enter this rank at: the target of some other
//    rank's leaving edge, and the start (latest MPI_Finalize entry). Each rank tells the owners
//    which of their begin vertices its leaving edges target (one sparse exchange). A node's
//    successor is the node its exit leads to, or none: the nodes form a forest, and the path
//    is the chain from the start node.
// 3. Jumping. In round r every node knows succ^(2^r) of itself and the number of hand-offs to
//    it; asking that node for its own pointer doubles both. The chain from the start is marked
//    along the way: a marked node y marks jump(y) before the pointers double, so after round r
//    the nodes succ^i(start), i < 2^(r+1), are marked. When the start's pointer runs off the
//    chain, every node of the path is marked: ceil(log2(H + 1)) rounds, each an MPI_Alltoall of
//    counts (which also carries the start rank's "done") and two sparse exchanges.
//    Nodes that nobody asked in a round stop jumping (unless marked, as the start is): a node is
//    asked in round r only by nodes 2^r hand-offs below it, and by induction one not asked in
//    round r has fewer than 2^(r+1) - 1 below it, so nobody asks it again and its pointer is
//    never read; a path node is asked by the marked node 2^r below it. The nodes form a forest
//    whose branches off the path are mostly short, so most nodes stop after a few rounds
//    instead of jumping all log H: on the what-if's walks of halo_bench 100k (17 rounds) a
//    node jumped 6.3 rounds on average.
// 4. Each rank walks its marked nodes locally (walk_local), in path order (most hand-offs to the
//    end first), so its segments are the sequential walk's, in the same order.
// Several walks (lanes: the what-if's scenarios) share the rounds: each step's Alltoall and
// exchanges carry every lane's counts and requests, and a lane drops out when its start rank
// says it is done. K walks then cost the rounds of the longest, not K times the rounds: what
// the walks cost at many ranks, where each round's latency outweighs its data (bench/walk_bench
// --walks 7: 3.4x faster at 64 ranks, even at 4).
#include <algorithm>
#include <cstring>
#include <functional>

#include "critical_path_walk.h"
#include "retimed_walk.h"
#include "walk_local.h"
#include "yielding_wait.h"

namespace cpath {

namespace {

constexpr int kRequestTag = 0x634a;
constexpr int kReplyTag = 0x634b;
// Local exits (memo values): an event j whose end edge leaves the rank, or kTerm | i (the chain
// ends at the start-up before the begin vertex of i), or one of the markers.
constexpr uint32_t kUnknown = 0xffffffffu;
constexpr uint32_t kVisiting = 0xfffffffeu;
constexpr uint32_t kBroken = 0xfffffffdu;  // cycle or out-of-range edge: inconsistent input
constexpr uint32_t kTerm = 0x80000000u;
constexpr uint32_t kMaxEvents = 0x7ffffff0u;
constexpr uint32_t kMarkBit = 0x80000000u;  // in a request: the requesting node is on the path
constexpr int32_t kNone = -1;

struct Pointer {
  int32_t rank;      // kNone: past the end of the chain
  uint32_t event;
  uint32_t hops;     // hand-offs from the node to where the pointer points
};

// One walk among those that share the rounds: its graph, its nodes and pointers, its result.
template <class G>
struct Lane {
  const G* g = nullptr;
  WalkResult r;
  bool jumping = false;  // false: nothing to walk, or walked sequentially
  bool done = false;     // every rank knows the start node's pointer ran off the chain
  uint32_t start_node = 0;
  uint32_t max_rounds = 0;
  uint64_t limit = 0;
  std::vector<uint32_t> memo;        // local exits, then event -> node
  std::vector<uint64_t> targets;     // (rank << 32 | event) of leaving edges
  std::vector<uint32_t> node_event;  // sorted
  std::vector<Pointer> jump;
  std::vector<uint8_t> marked;
  std::vector<uint8_t> asked;        // asked for its pointer in this round
  std::vector<uint32_t> active;      // nodes whose pointer is still on the chain and still read
};

// Counts and buffers are laid out per (peer, lane), peer-major: one Alltoall and one exchange
// per step serve every lane. G is the graphs' class: a final one (PagGraph, RetimedGraph) lets
// the per-event reads of compression and walk inline.
template <class G>
class Jumper {
  using Lane = cpath::Lane<G>;

 public:
  Jumper(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_rank(comm, &me_);
    PMPI_Comm_size(comm, &np_);
    lanes_.resize(graphs.size());
    for (size_t l = 0; l < graphs.size(); ++l) lanes_[l].g = static_cast<const G*>(graphs[l]);
    K_ = lanes_.size();
  }

  // Each lane's result goes to `take` as soon as its segments are walked, in lane order, so
  // that only one lane's segments exist at a time.
  void run(const std::function<void(size_t, WalkResult&, bool)>& take, size_t chunk) {
    const std::vector<WalkStart> starts = agree_walk_starts(graphs(), comm_);
    bool any = false;
    for (size_t l = 0; l < K_; ++l) {
      Lane& ln = lanes_[l];
      const WalkStart& st = starts[l];
      ln.r.start_rank = st.rank;
      ln.r.finalize_begin = st.finalize_begin;
      ln.r.job_begin = st.job_begin;
      if (st.rank < 0) continue;
      if (st.max_events >= kMaxEvents) {
        ln.r = walk_critical_path_sequential(*ln.g, comm_);  // every rank takes this branch for l
        continue;
      }
      ln.jumping = any = true;
      ln.limit = 4 * st.total_events + 16;
      ln.max_rounds = 2;
      for (uint64_t n = st.total_events + 1; n > 1; n = (n + 1) / 2) ++ln.max_rounds;
    }
    if (any) {
      for (Lane& ln : lanes_)
        if (ln.jumping) compress(ln);
      make_nodes();
      jump();
    }
    for (size_t l = 0; l < K_; ++l) {
      Lane& ln = lanes_[l];
      if (ln.jumping) emit_segments(ln, l, take, chunk);
      take(l, ln.r, true);
      ln.r = WalkResult();
    }
  }

 private:
  std::vector<const WalkGraph*> graphs() const {
    std::vector<const WalkGraph*> g;
    for (const Lane& ln : lanes_) g.push_back(ln.g);
    return g;
  }
  size_t at(int peer, size_t lane) const { return static_cast<size_t>(peer) * K_ + lane; }

  // --- 1. local compression
  uint32_t resolve(Lane& ln, uint32_t i) {
    stack_.clear();
    const G& g = *ln.g;
    uint32_t v = i, res = kBroken;
    const uint32_t n = g.events();
    while (true) {
      const uint32_t x = ln.memo[v];
      if (x != kUnknown) {
        res = x == kVisiting ? kBroken : x;
        break;
      }
      const uint32_t j = g.prev(v);
      if (g.is_init(v) || j == kNoEvent) {
        res = kTerm | v;
        stack_.push_back(v);
        break;
      }
      const PagTarget t = g.end_target(j);
      if (t.rank != me_) {
        if (t.rank >= 0 && t.rank < np_ && t.event < kMaxEvents) {
          res = j;
          ln.targets.push_back(static_cast<uint64_t>(t.rank) << 32 | t.event);
        }
        stack_.push_back(v);
        break;
      }
      if (t.event >= n) {
        stack_.push_back(v);
        break;
      }
      ln.memo[v] = kVisiting;
      stack_.push_back(v);
      v = t.event;
    }
    for (uint32_t s : stack_) ln.memo[s] = res;
    return res;
  }

  // In event order: an end edge that stays on the rank enters a lower event (a thread's call
  // follows its previous one, and a partner on another thread began before the call ended), so
  // that event's exit is known and is this one's. Only what breaks that order (inconsistent
  // input: an edge forward or past the events) goes through resolve, which finds cycles.
  void compress(Lane& ln) {
    const G& g = *ln.g;
    const uint32_t n = g.events();
    ln.memo.assign(n, kUnknown);
    uint32_t* memo = ln.memo.data();
    for (uint32_t v = 0; v < n; ++v) {
      if (memo[v] != kUnknown) continue;  // on a chain resolve followed
      const uint32_t j = g.prev(v);
      if (g.is_init(v) || j == kNoEvent) {
        memo[v] = kTerm | v;
        continue;
      }
      const PagTarget t = g.end_target(j);
      if (t.rank != me_) {
        if (t.rank >= 0 && t.rank < np_ && t.event < kMaxEvents) {
          memo[v] = j;
          ln.targets.push_back(static_cast<uint64_t>(t.rank) << 32 | t.event);
        } else {
          memo[v] = kBroken;
        }
        continue;
      }
      if (t.event < v) {
        memo[v] = memo[t.event];
        continue;
      }
      resolve(ln, v);
    }
  }

  static Pointer successor(const Lane& ln, uint32_t event) {
    const uint32_t x = ln.memo[event];
    if (x == kBroken || (x & kTerm)) return Pointer{kNone, 0, 0};
    const PagTarget t = ln.g->end_target(x);
    return Pointer{t.rank, t.event, 1};
  }

  // --- 2. nodes
  void make_nodes() {
    const size_t np = static_cast<size_t>(np_);
    std::vector<long long> sc(np * K_, 0), rc(np * K_, 0);
    for (size_t l = 0; l < K_; ++l) {
      // Unsorted, with the rare duplicate (two exits entering one vertex): the owner sorts and
      // merges them in one pass over its events (lane_nodes), where sorting here cost more.
      Lane& ln = lanes_[l];
      for (uint64_t t : ln.targets) ++sc[at(static_cast<int>(t >> 32), l)];
    }
    std::vector<uint32_t> send(static_cast<size_t>(offsets(sc).back()));
    {
      std::vector<long long> pos = offsets(sc);
      for (size_t l = 0; l < K_; ++l) {
        Lane& ln = lanes_[l];
        for (uint64_t t : ln.targets) send[static_cast<size_t>(pos[at(static_cast<int>(t >> 32), l)]++)] = static_cast<uint32_t>(t);
        std::vector<uint64_t>().swap(ln.targets);
      }
    }
    tool_alltoall(sc.data(), static_cast<int>(K_), MPI_LONG_LONG, rc.data(), static_cast<int>(K_), MPI_LONG_LONG, comm_);
    std::vector<uint32_t> recv(static_cast<size_t>(offsets(rc).back()));
    exchange(send.data(), sc, recv.data(), rc, 1, kRequestTag);
    std::vector<uint32_t>().swap(send);
    // Each lane's nodes: the begin vertices other ranks' edges enter, and the start.
    size_t x = 0;
    for (int p = 0; p < np_; ++p)
      for (size_t l = 0; l < K_; ++l)
        for (long long c = rc[at(p, l)]; c > 0; --c) lanes_[l].node_event.push_back(recv[x++]);
    std::vector<uint32_t>().swap(recv);
    for (Lane& ln : lanes_)
      if (ln.jumping) lane_nodes(ln);
  }

  // Offsets of each (peer, lane) block in a buffer laid out peer-major; back() is the total.
  std::vector<long long> offsets(const std::vector<long long>& counts) const {
    std::vector<long long> o(counts.size() + 1, 0);
    for (size_t k = 0; k < counts.size(); ++k) o[k + 1] = o[k] + counts[k];
    return o;
  }

  void lane_nodes(Lane& ln) {
    const G& g = *ln.g;
    const bool start_here = me_ == ln.r.start_rank;
    const uint32_t n = g.events();
    if (start_here) ln.node_event.push_back(g.finalize_event());
    // Sorted and unique by a bit per event. A vertex past the events (inconsistent input) is no
    // node: a request for it is answered "off the chain" (jump) and the walk is truncated.
    {
      std::vector<uint64_t> bits((static_cast<size_t>(n) + 63) / 64, 0);
      for (uint32_t e : ln.node_event) {
        if (e >= n) {
          ln.r.truncated = true;
          continue;
        }
        bits[e >> 6] |= 1ull << (e & 63);
      }
      ln.node_event.clear();
      for (size_t w = 0; w < bits.size(); ++w)
        for (uint64_t b = bits[w]; b; b &= b - 1)
          ln.node_event.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(b))));
    }
    const size_t m = ln.node_event.size();
    ln.r.nodes = static_cast<int64_t>(m);
    ln.jump.resize(m);
    ln.marked.assign(m, 0);
    ln.asked.assign(m, 0);
    for (size_t k = 0; k < m; ++k) {
      ln.jump[k] = successor(ln, ln.node_event[k]);
      if (ln.jump[k].rank != kNone) ln.active.push_back(static_cast<uint32_t>(k));
    }
    // The memo's storage becomes the event -> node map.
    std::fill(ln.memo.begin(), ln.memo.end(), kUnknown);
    for (size_t k = 0; k < m; ++k) ln.memo[ln.node_event[k]] = static_cast<uint32_t>(k);
    if (start_here) {
      ln.start_node = ln.memo[g.finalize_event()];
      ln.marked[ln.start_node] = 1;
    }
  }

  // Point-to-point exchange with the peers that have something to send or receive (counts per
  // (peer, lane), in units of `width` uint32_t). No Alltoallv: displacements could overflow an int.
  void exchange(const uint32_t* send, const std::vector<long long>& sc, uint32_t* recv,
                const std::vector<long long>& rc, int width, int tag) {
    reqs_.clear();
    auto per_peer = [&](const std::vector<long long>& c, int p) {
      long long n = 0;
      for (size_t l = 0; l < K_; ++l) n += c[at(p, l)];
      return n;
    };
    long long off = 0;
    for (int p = 0; p < np_; ++p) {
      const long long n = per_peer(rc, p);
      if (n > 0) {
        reqs_.emplace_back();
        PMPI_Irecv(recv + off * width, static_cast<int>(n * width), MPI_UINT32_T, p, tag, comm_, &reqs_.back());
      }
      off += n;
    }
    off = 0;
    for (int p = 0; p < np_; ++p) {
      const long long n = per_peer(sc, p);
      if (n > 0) {
        reqs_.emplace_back();
        PMPI_Isend(send + off * width, static_cast<int>(n * width), MPI_UINT32_T, p, tag, comm_, &reqs_.back());
      }
      off += n;
    }
    waitall_yielding(static_cast<int>(reqs_.size()), reqs_.data());
  }

  // --- 3. jumping
  void jump() {
    const size_t np = static_cast<size_t>(np_);
    std::vector<long long> sc(np * K_), rc(np * K_), flagged(np * K_);
    std::vector<uint32_t> req, in;
    std::vector<std::pair<uint32_t, uint32_t>> order;  // (lane, node) of each request
    std::vector<Pointer> reply, back;
    const double t0 = PMPI_Wtime();
    for (uint32_t round = 0;; ++round) {
      // The start rank of a lane says when its start node's pointer ran off the chain.
      std::vector<uint8_t> says_done(K_, 0);
      for (size_t l = 0; l < K_; ++l) {
        Lane& ln = lanes_[l];
        if (!ln.jumping || ln.done || me_ != ln.r.start_rank) continue;
        says_done[l] = ln.jump[ln.start_node].rank == kNone;
        if (!says_done[l] && round >= ln.max_rounds) {
          ln.r.truncated = true;  // a cycle: the pointers never run off the chain
          says_done[l] = 1;
        }
      }
      std::fill(sc.begin(), sc.end(), 0);
      for (size_t l = 0; l < K_; ++l)
        for (uint32_t k : lanes_[l].active) ++sc[at(lanes_[l].jump[k].rank, l)];
      for (size_t k = 0; k < sc.size(); ++k) flagged[k] = sc[k] * 2 + says_done[k % K_];
      tool_alltoall(flagged.data(), static_cast<int>(K_), MPI_LONG_LONG, rc.data(), static_cast<int>(K_), MPI_LONG_LONG, comm_);
      // A lane its start rank called done is finished on every rank: its requests of this
      // round are dropped on both sides.
      bool running = false;
      for (size_t l = 0; l < K_; ++l) {
        Lane& ln = lanes_[l];
        if (!ln.jumping || ln.done) continue;
        if (rc[at(ln.r.start_rank, l)] & 1) {
          ln.done = true;
          ln.active.clear();
          for (int p = 0; p < np_; ++p) sc[at(p, l)] = rc[at(p, l)] = 0;
          continue;
        }
        running = true;
        ln.r.rounds = round + 1;
      }
      if (!running) break;
      for (long long& c : rc) c >>= 1;
      // Requests grouped by owner, then lane (counting sort), remembering which node asked.
      std::vector<long long> pos = offsets(sc);
      req.resize(static_cast<size_t>(pos.back()));
      order.resize(req.size());
      for (size_t l = 0; l < K_; ++l) {
        const Lane& ln = lanes_[l];
        for (uint32_t k : ln.active) {
          const size_t x = static_cast<size_t>(pos[at(ln.jump[k].rank, l)]++);
          req[x] = ln.jump[k].event | (ln.marked[k] ? kMarkBit : 0u);
          order[x] = {static_cast<uint32_t>(l), k};
        }
      }
      in.resize(static_cast<size_t>(offsets(rc).back()));
      exchange(req.data(), sc, in.data(), rc, 1, kRequestTag);
      // Answer with the pointers as they were before this round; mark the path.
      reply.resize(in.size());
      size_t x = 0;
      for (int p = 0; p < np_; ++p)
        for (size_t l = 0; l < K_; ++l) {
          Lane& ln = lanes_[l];
          for (long long c = rc[at(p, l)]; c > 0; --c, ++x) {
            const uint32_t e = in[x] & ~kMarkBit;
            const uint32_t k = e < ln.memo.size() ? ln.memo[e] : kUnknown;
            if (k == kUnknown) {
              reply[x] = Pointer{kNone, 0, 0};
              ln.r.truncated = true;
              continue;
            }
            reply[x] = ln.jump[k];
            ln.asked[k] = 1;
            if (in[x] & kMarkBit) ln.marked[k] = 1;
          }
        }
      back.resize(req.size());
      exchange(reinterpret_cast<const uint32_t*>(reply.data()), rc, reinterpret_cast<uint32_t*>(back.data()), sc, 3,
               kReplyTag);
      for (size_t i = 0; i < back.size(); ++i) {
        Pointer& j = lanes_[order[i].first].jump[order[i].second];
        j.hops += back[i].hops;
        j.rank = back[i].rank;
        j.event = back[i].event;
      }
      for (Lane& ln : lanes_) {
        size_t kept = 0;
        for (uint32_t k : ln.active) {  // the start is marked (lane_nodes)
          const bool keep = ln.jump[k].rank != kNone && (ln.asked[k] || ln.marked[k]);
          ln.asked[k] = 0;  // a node dropped here is never read again, asked or not
          if (keep) ln.active[kept++] = k;
        }
        ln.active.resize(kept);
      }
    }
    const double secs = PMPI_Wtime() - t0;
    for (Lane& ln : lanes_) ln.r.rounds_s = secs;
  }

  // --- 4. segments
  void emit_segments(Lane& ln, size_t l, const std::function<void(size_t, WalkResult&, bool)>& take, size_t chunk) {
    std::vector<uint32_t> on_path;
    for (uint32_t k = 0; k < ln.marked.size(); ++k)
      if (ln.marked[k]) on_path.push_back(k);
    // Path order: the node with the most hand-offs still ahead comes first.
    std::sort(on_path.begin(), on_path.end(), [&](uint32_t a, uint32_t b) {
      if (ln.jump[a].hops != ln.jump[b].hops) return ln.jump[a].hops > ln.jump[b].hops;
      return ln.node_event[a] > ln.node_event[b];
    });
    std::vector<uint32_t>().swap(ln.memo);
    if (chunk == SIZE_MAX) {
      // The whole path at once: sized exactly, by a first walk that only counts.
      uint64_t steps = 0;
      size_t total = ln.r.segments.size();
      for (uint32_t k : on_path) {
        CountSink c;
        walk_local_into(*ln.g, me_, ln.node_event[k], ln.r.job_begin, steps, ln.limit, &c, SIZE_MAX);
        total += c.n;
      }
      ln.r.segments.reserve(total);
    }
    uint64_t steps = 0;
    for (uint32_t k : on_path) {
      LocalWalkEnd end;
      for (uint32_t from = ln.node_event[k];; from = end.event) {
        end = walk_local_into(*ln.g, me_, from, ln.r.job_begin, steps, ln.limit, &ln.r.segments, chunk);
        if (!end.paused) break;
        take(l, ln.r, false);
        ln.r.segments.clear();
      }
      if (end.truncated) ln.r.truncated = true;
      if (end.rank >= 0) ++ln.r.handoffs;
    }
    std::vector<uint32_t>().swap(ln.node_event);
    std::vector<Pointer>().swap(ln.jump);
    std::vector<uint8_t>().swap(ln.marked);
    std::vector<uint8_t>().swap(ln.asked);
  }

  MPI_Comm comm_;
  int me_ = 0, np_ = 1;
  size_t K_ = 0;
  std::vector<Lane> lanes_;
  std::vector<uint32_t> stack_;
  std::vector<MPI_Request> reqs_;
};

// Whether every graph is a G. Any instantiation makes the same collective calls, so ranks that
// chose differently would still stay in step.
template <class G>
bool all_of_class(const std::vector<const WalkGraph*>& graphs) {
  return std::all_of(graphs.begin(), graphs.end(), [](const WalkGraph* g) { return dynamic_cast<const G*>(g) != nullptr; });
}

void run_jumper(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm,
                const std::function<void(size_t, WalkResult&, bool)>& take, size_t chunk) {
  if (all_of_class<RetimedGraph>(graphs)) Jumper<RetimedGraph>(graphs, comm).run(take, chunk);
  else if (all_of_class<PagGraph>(graphs)) Jumper<PagGraph>(graphs, comm).run(take, chunk);
  else Jumper<WalkGraph>(graphs, comm).run(take, chunk);
}

}  // namespace

WalkResult walk_critical_path_jumping(const WalkGraph& g, MPI_Comm comm) {
  WalkResult r;
  run_jumper({&g}, comm, [&](size_t, WalkResult& w, bool) { r = std::move(w); }, SIZE_MAX);
  return r;
}

void walk_critical_paths_jumping(const std::vector<const WalkGraph*>& graphs, MPI_Comm comm,
                                 const std::function<void(size_t, WalkResult&, bool)>& take, size_t chunk) {
  run_jumper(graphs, comm, take, std::max<size_t>(chunk, 1));
}

}  // namespace cpath
