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
// 4. Each rank walks its marked nodes locally (walk_local), in path order (most hand-offs to the
//    end first), so its segments are the sequential walk's, in the same order.
#include <algorithm>
#include <cstring>

#include "yielding_wait.h"
#include "critical_path_walk.h"

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

class Jumper {
 public:
  Jumper(const WalkGraph& g, MPI_Comm comm) : g_(g), comm_(comm) {
    PMPI_Comm_rank(comm, &me_);
    PMPI_Comm_size(comm, &np_);
  }

  WalkResult run() {
    const WalkStart st = agree_walk_start(g_, comm_);
    r_.start_rank = st.rank;
    r_.finalize_begin = st.finalize_begin;
    r_.job_begin = st.job_begin;
    if (st.rank < 0) return std::move(r_);
    if (st.max_events >= kMaxEvents) {
      WalkResult s = walk_critical_path_sequential(g_, comm_);
      return s;
    }
    limit_ = 4 * st.total_events + 16;
    start_rank_ = st.rank;
    max_rounds_ = 2;
    for (uint64_t n = st.total_events + 1; n > 1; n = (n + 1) / 2) ++max_rounds_;
    compress();
    make_nodes();
    jump();
    emit_segments();
    return std::move(r_);
  }

 private:
  // --- 1. local compression
  uint32_t resolve(uint32_t i) {
    stack_.clear();
    uint32_t v = i, res = kBroken;
    const uint32_t n = g_.events();
    while (true) {
      const uint32_t x = memo_[v];
      if (x != kUnknown) {
        res = x == kVisiting ? kBroken : x;
        break;
      }
      const uint32_t j = g_.prev(v);
      if (g_.is_init(v) || j == kNoEvent) {
        res = kTerm | v;
        stack_.push_back(v);
        break;
      }
      const PagTarget t = g_.end_edge(j);
      if (t.rank != me_) {
        if (t.rank >= 0 && t.rank < np_ && t.event < kMaxEvents) {
          res = j;
          targets_.push_back(static_cast<uint64_t>(t.rank) << 32 | t.event);
        }
        stack_.push_back(v);
        break;
      }
      if (t.event >= n) {
        stack_.push_back(v);
        break;
      }
      memo_[v] = kVisiting;
      stack_.push_back(v);
      v = t.event;
    }
    for (uint32_t s : stack_) memo_[s] = res;
    return res;
  }

  void compress() {
    const uint32_t n = g_.events();
    memo_.assign(n, kUnknown);
    for (uint32_t i = 0; i < n; ++i)
      if (memo_[i] == kUnknown) resolve(i);
  }

  Pointer successor(uint32_t event) const {
    const uint32_t x = memo_[event];
    if (x == kBroken || (x & kTerm)) return Pointer{kNone, 0, 0};
    const PagTarget t = g_.end_edge(x);
    return Pointer{t.rank, t.event, 1};
  }

  // --- 2. nodes
  void make_nodes() {
    std::sort(targets_.begin(), targets_.end());
    targets_.erase(std::unique(targets_.begin(), targets_.end()), targets_.end());
    std::vector<long long> sc(static_cast<size_t>(np_), 0), rc(static_cast<size_t>(np_), 0);
    std::vector<uint32_t> send(targets_.size());
    for (size_t k = 0; k < targets_.size(); ++k) {
      ++sc[static_cast<size_t>(targets_[k] >> 32)];
      send[k] = static_cast<uint32_t>(targets_[k]);
    }
    std::vector<uint64_t>().swap(targets_);
    PMPI_Alltoall(sc.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm_);
    long long total = 0;
    for (long long c : rc) total += c;
    const bool start_here = me_ == start_rank_;
    std::vector<uint32_t> recv(static_cast<size_t>(total) + (start_here ? 1 : 0));
    exchange(send.data(), sc, recv.data(), rc, 1, kRequestTag);
    std::vector<uint32_t>().swap(send);
    if (start_here) recv.back() = g_.finalize_event();
    std::sort(recv.begin(), recv.end());
    recv.erase(std::unique(recv.begin(), recv.end()), recv.end());
    node_event_.swap(recv);
    const size_t m = node_event_.size();
    jump_.resize(m);
    marked_.assign(m, 0);
    bool bad = false;
    for (size_t k = 0; k < m; ++k) {
      if (node_event_[k] >= g_.events()) {
        jump_[k] = Pointer{kNone, 0, 0};
        bad = true;
        continue;
      }
      jump_[k] = successor(node_event_[k]);
      if (jump_[k].rank != kNone) active_.push_back(static_cast<uint32_t>(k));
    }
    if (bad) r_.truncated = true;
    // The memo's storage becomes the event -> node map.
    std::fill(memo_.begin(), memo_.end(), kUnknown);
    for (size_t k = 0; k < m; ++k)
      if (node_event_[k] < memo_.size()) memo_[node_event_[k]] = static_cast<uint32_t>(k);
    if (start_here) {
      start_node_ = memo_[g_.finalize_event()];
      marked_[start_node_] = 1;
    }
  }

  // Point-to-point exchange with the peers that have something to send or receive (counts in
  // units of `width` uint32_t). No Alltoallv: displacements could overflow an int.
  void exchange(const uint32_t* send, const std::vector<long long>& sc, uint32_t* recv,
                const std::vector<long long>& rc, int width, int tag) {
    reqs_.clear();
    long long off = 0;
    for (int p = 0; p < np_; ++p) {
      const long long n = rc[static_cast<size_t>(p)];
      if (n > 0) {
        reqs_.emplace_back();
        PMPI_Irecv(recv + off * width, static_cast<int>(n * width), MPI_UINT32_T, p, tag, comm_, &reqs_.back());
      }
      off += n;
    }
    off = 0;
    for (int p = 0; p < np_; ++p) {
      const long long n = sc[static_cast<size_t>(p)];
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
    std::vector<long long> sc(np), rc(np), flagged(np);
    std::vector<uint32_t> req, order, in;
    std::vector<Pointer> reply, back;
    bool done = false;
    const double t0 = PMPI_Wtime();
    for (uint32_t round = 0;; ++round) {
      if (me_ == start_rank_) {
        done = jump_[start_node_].rank == kNone;
        if (!done && round >= max_rounds_) {
          r_.truncated = true;  // a cycle: the pointers never run off the chain
          done = true;
        }
      }
      std::fill(sc.begin(), sc.end(), 0);
      for (uint32_t k : active_) ++sc[static_cast<size_t>(jump_[k].rank)];
      for (size_t p = 0; p < np; ++p) flagged[p] = sc[p] * 2 + (done ? 1 : 0);
      PMPI_Alltoall(flagged.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm_);
      if (rc[static_cast<size_t>(start_rank_)] & 1) break;
      r_.rounds = round + 1;
      long long total = 0;
      for (size_t p = 0; p < np; ++p) {
        rc[p] >>= 1;
        total += rc[p];
      }
      // Requests grouped by owner (counting sort), remembering which node asked.
      std::vector<long long> pos(np + 1, 0);
      for (size_t p = 0; p < np; ++p) pos[p + 1] = pos[p] + sc[p];
      req.resize(active_.size());
      order.resize(active_.size());
      for (uint32_t k : active_) {
        const size_t at = static_cast<size_t>(pos[static_cast<size_t>(jump_[k].rank)]++);
        req[at] = jump_[k].event | (marked_[k] ? kMarkBit : 0u);
        order[at] = k;
      }
      in.resize(static_cast<size_t>(total));
      exchange(req.data(), sc, in.data(), rc, 1, kRequestTag);
      // Answer with the pointers as they were before this round; mark the path.
      reply.resize(in.size());
      for (size_t i = 0; i < in.size(); ++i) {
        const uint32_t e = in[i] & ~kMarkBit;
        const uint32_t k = e < memo_.size() ? memo_[e] : kUnknown;
        if (k == kUnknown) {
          reply[i] = Pointer{kNone, 0, 0};
          r_.truncated = true;
          continue;
        }
        reply[i] = jump_[k];
        if (in[i] & kMarkBit) marked_[k] = 1;
      }
      back.resize(req.size());
      exchange(reinterpret_cast<const uint32_t*>(reply.data()), rc, reinterpret_cast<uint32_t*>(back.data()), sc, 3,
               kReplyTag);
      size_t kept = 0;
      for (size_t i = 0; i < back.size(); ++i) {
        Pointer& j = jump_[order[i]];
        j.hops += back[i].hops;
        j.rank = back[i].rank;
        j.event = back[i].event;
      }
      for (uint32_t k : active_)
        if (jump_[k].rank != kNone) active_[kept++] = k;
      active_.resize(kept);
    }
    r_.rounds_s = PMPI_Wtime() - t0;
  }

  // --- 4. segments
  void emit_segments() {
    std::vector<uint32_t> on_path;
    for (uint32_t k = 0; k < marked_.size(); ++k)
      if (marked_[k]) on_path.push_back(k);
    // Path order: the node with the most hand-offs still ahead comes first.
    std::sort(on_path.begin(), on_path.end(), [&](uint32_t a, uint32_t b) {
      if (jump_[a].hops != jump_[b].hops) return jump_[a].hops > jump_[b].hops;
      return node_event_[a] > node_event_[b];
    });
    std::vector<uint32_t>().swap(memo_);
    uint64_t steps = 0;
    for (uint32_t k : on_path) {
      const LocalWalkEnd end = walk_local(g_, me_, node_event_[k], r_.job_begin, steps, limit_, &r_.segments);
      if (end.truncated) r_.truncated = true;
      if (end.rank >= 0) ++r_.handoffs;
    }
  }

  const WalkGraph& g_;
  MPI_Comm comm_;
  int me_ = 0, np_ = 1;
  int start_rank_ = -1;
  uint32_t start_node_ = 0;
  uint32_t max_rounds_ = 0;
  uint64_t limit_ = 0;
  WalkResult r_;
  std::vector<uint32_t> memo_;        // local exits, then event -> node
  std::vector<uint32_t> stack_;
  std::vector<uint64_t> targets_;     // (rank << 32 | event) of leaving edges
  std::vector<uint32_t> node_event_;  // sorted
  std::vector<Pointer> jump_;
  std::vector<uint8_t> marked_;
  std::vector<uint32_t> active_;      // nodes whose pointer is still on the chain
  std::vector<MPI_Request> reqs_;
};

}  // namespace

WalkResult walk_critical_path_jumping(const WalkGraph& g, MPI_Comm comm) { return Jumper(g, comm).run(); }

}  // namespace cpath
