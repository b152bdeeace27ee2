#include "forward_pass.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <tuple>

#include "byte_io.h"
#include "collective_replay.h"
#include "comm_unification.h"
#include "fnv1a.h"
#include "pag.h"
#include "sorted_runs.h"
#include "sparse_exchange.h"
#include "yielding_wait.h"

namespace cpath {

namespace {

constexpr int kFwdTag = 0x6677;
constexpr int64_t kNone64 = INT64_MIN;
constexpr uint32_t kInitSeq = UINT32_MAX;
// kMsgAck: the receiver has taken m[1] values from this rank (flow control, below).
enum : int64_t { kMsgValue = 1, kMsgContrib = 2, kMsgResult = 3, kMsgAck = 4 };
constexpr size_t kHeader = 3;
// Flow control: at most kWindow of a rank's values to one other rank are not yet taken by it
// (a message carries several, Pass::send); the receiver acknowledges every kAckEvery. A rank far ahead of a busy one otherwise
// leaves its messages queued inside MPI without bound, and Open MPI 4.1.4 (ob1 over shared
// memory) then loses or misorders some: a standalone program making 130 000 small Isends to a
// rank that calls no MPI for 5 s hangs (120 000 complete), and this pass hung in
// MPI_Finalize on MPICH's threads/pt2pt/threads (160 009 messages from one rank to the other).
// Bounding only the sends MPI has not completed is not enough: a small send completes once it
// is in the receiver's queue.
constexpr uint64_t kWindow = 4096;
constexpr uint64_t kAckEvery = 1024;
// All-patterns on communicators of at most this many members exchange begins directly.
constexpr int32_t kDirectAll = 8;
// Chains keep every kBeginStride-th event's new begins (RetimedRun::stride).
constexpr uint32_t kBeginStride = 16;
// Frames between cuts (Pass::cuts_): at most this many are re-timed at once, each in a slot
// of the chains' current begins (a power of two: a mask picks the slot).
constexpr uint32_t kCutWindow = 128;
static_assert((kCutWindow & (kCutWindow - 1)) == 0, "chain_of masks by the window");

// Cut resolution: the frames' offsets are reduced this many cuts at a time.
constexpr size_t kCutChunk = 4096;
static_assert((kBeginStride & (kBeginStride - 1)) == 0, "RetimedRun::begin_of masks by the stride");

struct CollKey {
  uint64_t key;
  uint32_t seq;
  bool operator<(const CollKey& o) const { return key != o.key ? key < o.key : seq < o.seq; }
  bool operator==(const CollKey& o) const { return key == o.key && seq == o.seq; }
};

// An instance this rank gathers (its lowest member): all, scan, exscan, MPI_Init.
struct Coordinated {
  CollKey k;
  Pattern pattern;
  int32_t rec;      // communicator record (-1: world, for MPI_Init)
  int32_t size;
  int32_t got = 0;
  std::vector<int64_t> vals;  // all: S maxima; scans: S per member (member-major)
  std::vector<uint64_t> who;  // keep_run: the vertex of each value (same layout)
  // Scans: which members' begins came, the next member to answer, and the latest begin of
  // the members before it (with its vertex).
  std::vector<uint8_t> came;
  int32_t next = 0;
  std::vector<int64_t> run;
  std::vector<uint64_t> runw;
  uint32_t cut_event = kNoEvent;  // the candidate cut (Pass::cand_) this instance is, if any
};

class Pass {
 public:
  Pass(const ForwardInput& in, int S, MPI_Comm comm) : in_(in), tl_(*in.tl), ops_(*in.ops), S_(S), comm_(comm) {
    PMPI_Comm_rank(comm, &me_);
    PMPI_Comm_size(comm, &np_);
    n_ = static_cast<uint32_t>(tl_.ev.size());
    keep_ = in.keep_run;
    msg_len_ = kHeader + static_cast<size_t>(S_) * (keep_ ? 2 : 1);
  }

  ForwardResult run() {
    ForwardResult r;
    setup();
    post_ring();
    loop();
    finish(&r);
    return r;
  }

 private:
  const ForwardInput& in_;
  const Timeline& tl_;
  const OpTable& ops_;
  const int S_;
  MPI_Comm comm_;
  int me_ = 0, np_ = 1;
  uint32_t n_ = 0;
  uint32_t finalize_ = kNoEvent, init_ = kNoEvent;
  bool keep_ = false;
  size_t msg_len_ = kHeader;
  // Only events whose end waits for something (a partner, a collective instance) have a row in
  // dep_ and the bound vertices (row-major [row * S + s] while a row is open): the others'
  // ends are bound by their own begins.
  // Rows also hold the new ends of these events and of polling ones (poll_row_); the end of any
  // other event is its new begin plus its own MPI time, scaled (end_of).
  std::vector<uint32_t> row_;  // per event: its row, or kNoEvent
  // keep_run: the vertex of dep_ (then of the end edge). A row's S vertices are held in a slot
  // of who_pool_ only from its first dependency to its end (edge_at_[row] = slot + 1; 0: not
  // begun), then packed into edge_verts_ (RetimedRun::pack_edges; edge_at_ its word).
  std::vector<uint64_t> edge_at_, edge_verts_, who_pool_;
  std::vector<uint32_t> who_free_;
  std::vector<uint64_t> one_;  // S copies of one vertex

  // Chains (each event's predecessor is the one before it): bn_ keeps every kBeginStride-th
  // event's begins only (RetimedRun::stride; scenario-major is awkward for vectors:
  // [(i / stride) * S + s]). The begin and the re-timed compute so far of each chain's current
  // event are in cur_ / cur_cb_ ([chain * S + s]); the few earlier ones a later end needs (a
  // polling loop's first poll and last poll before the partner, and MPI_Finalize) are kept in
  // keep_b_ / keep_c_ ([k * S + s], k: index in keep_ev_).
  std::vector<int64_t> bn_;
  std::vector<uint32_t> chain_start_;
  // Threads that overlap in the timeline: each recording thread's events are one chain, a lane
  // (RetimedRun::flat_of), laid out one after another, each from a multiple of the stride, so
  // that the stride's kept begins serve them as they serve one thread (SNAP, 2 threads per
  // rank: the begins of every event and scenario were 56 of its 352 bytes per event).
  bool lanes_ = false;
  uint32_t lane_count_ = 0;
  std::vector<uint32_t> flat_of_, lane_events_;
  std::vector<int64_t> cur_, cur_cb_;
  std::vector<uint32_t> keep_ev_;
  std::vector<int64_t> keep_b_, keep_c_;
  // dep_ by row (row_). New ends are kept only for polling rows (en_, by row_poll_): a waiting
  // event's new end is max(its new begin, dep_) + its scaled MPI time, and so is recomputed
  // (8 bytes per scenario and waiting event saved).
  std::vector<int64_t> dep_, en_;
  std::vector<int64_t> d_;
  std::vector<int64_t> end_tmp_;   // S new ends of an event without a row
  // Rule 5, by polling row (row_poll_): the poll that starts the wait and the loop's last poll
  // before the partner began. Only polling rows have them: 8 bytes per row of every waiting
  // event were 10 bytes per event of the what-if's peak on lu_wavefront, which never polls.
  std::vector<std::pair<uint32_t, uint32_t>> poll_row_;
  std::vector<uint32_t> row_poll_;  // by row: a polling row's index into en_ (/ S) and poll_row_, else kNoEvent (RetimedRun::row_poll)
  std::vector<uint32_t> pend_;
  std::vector<uint32_t> succ_begin_, succ_;            // begins that follow each end (empty: i + 1)
  std::vector<std::pair<uint32_t, uint32_t>> local_;   // (event whose begin, event whose end waits), sorted
  std::vector<std::tuple<int32_t, uint32_t, uint32_t>> remote_;  // (rank, event there, my event), sorted
  std::vector<std::pair<uint32_t, int32_t>> subs_;     // (my event, rank waiting for its begin), sorted
  std::vector<std::pair<CollKey, uint32_t>> results_;  // instance -> my event waiting for it, sorted
  std::vector<Coordinated> coord_;                     // sorted by key
  struct Contribution {
    uint32_t event;  // posting event
    CollKey k;
    Pattern pattern;
    int32_t local;
    std::vector<int32_t> to;  // world ranks to send the begin to (results), or the coordinator
    bool to_coordinator;
  };
  std::vector<Contribution> contrib_;  // sorted by event
  // Per event, which of local_, subs_ and contrib_ list its begin (kHas*): most events are in
  // none, and a begin then costs no search.
  enum : uint8_t { kHasLocal = 1, kHasSub = 2, kHasContrib = 4, kKeepBegin = 8, kKeepCb = 16, kCut = 32 };
  std::vector<uint8_t> has_;

  // Cuts (docs/what-if.md "Frames between world-wide collectives"): blocking collectives of the
  // "all" pattern on a communicator of every rank, where every member waits for every other
  // and for nothing else. Such an instance ends at T + its member's own MPI time, scaled,
  // where T is the latest member's new begin: everything after it on a rank is T plus what the
  // events in between add, whatever T is. So the events between two cuts (a frame) are re-timed
  // from T = 0, every frame at once (kCutWindow at a time), without a message round per
  // instance; the frames' offsets follow from one reduction of the cuts' begins at the end,
  // and every kept time gets its frame's offset added. Valid only where no dependency crosses
  // a cut (checked in setup, such cuts dropped) and every rank is one chain of calls.
  std::vector<uint32_t> cand_;                      // events of the candidate instances, in order
  uint64_t cand_hash_ = kFnv1aBasis;                // of their keys, in order
  std::vector<uint8_t> cand_bad_;                   // a candidate this rank rules out
  uint32_t cand_expect_ = 0;                        // the last candidate's count of members waited for
  std::vector<uint32_t> cuts_;                      // events of the cuts, ascending: cut m ends frame m
  std::vector<uint32_t> cut_blk_;                   // per 16 events: cuts before the block's first event
  std::vector<uint8_t> slot_busy_;                  // per slot: a frame begun and not ended
  size_t next_frame_ = 1;                           // the next frame to begin

  // Frame of event i's begin: the cuts before i.
  uint32_t frame(uint32_t i) const {
    uint32_t x = cut_blk_[i >> 4];
    while (x < cuts_.size() && cuts_[x] < i) ++x;
    return x;
  }
  void index_cuts() {
    cut_blk_.assign(static_cast<size_t>(n_ >> 4) + 1, 0);
    uint32_t x = 0;
    for (size_t b = 0; b < cut_blk_.size(); ++b) {
      const uint64_t first = static_cast<uint64_t>(b) << 4;
      while (x < cuts_.size() && cuts_[x] < first) ++x;
      cut_blk_[b] = x;
    }
  }
  bool is_cut(uint32_t i) const { return std::binary_search(cuts_.begin(), cuts_.end(), i); }
  size_t coord_left_ = 0;

  std::vector<uint32_t> ready_;  // work list: vertex ids (2i: begin of i, 2i+1: end of i)
  uint64_t done_ = 0;
  std::vector<std::vector<int64_t>> out_bufs_;
  std::vector<MPI_Request> out_reqs_;
  std::vector<std::vector<int64_t>> free_bufs_;  // sent messages' buffers, for the next ones
  // Receives posted ahead, a ring of identical ones (any source, the pass's tag): MPI matches a
  // message to the earliest posted, so they complete in ring order, and a message costs one
  // test of the ring's head instead of a probe and a second matching receive.
  static constexpr size_t kRing = 32;
  // Values per message at most, and the steps after which the outboxes go out anyway (a rank
  // with much work ready would otherwise hold a pipeline's next stage back until it ran out).
  static constexpr size_t kBatchWords = 1024;  // 8 KiB, and at least 4 values
  static constexpr uint32_t kFlushEvery = 256;
  size_t batch_len() const { return std::max<size_t>(4, kBatchWords / msg_len_) * msg_len_; }
  std::vector<std::vector<int64_t>> outbox_;  // per receiver: values not sent yet
  std::vector<int> dirty_;                    // receivers whose outbox has values
  std::vector<int64_t> self_box_;
  std::vector<int64_t> ring_buf_;
  std::vector<MPI_Request> ring_;
  size_t head_ = 0;
  size_t reclaim_at_ = 4096;
  // Sends are also tested once their buffers hold this many int64s (a message of many values
  // is large), and at most kFreeBufs completed buffers are kept for reuse.
  static constexpr size_t kReclaimWords = size_t{1} << 14;
  static constexpr size_t kFreeBufs = 16;
  size_t out_words_ = 0, reclaim_words_ = kReclaimWords;
  std::vector<uint64_t> sent_to_;      // messages posted, acknowledgements included
  std::vector<uint64_t> values_to_;    // messages posted that the receiver acknowledges
  std::vector<uint64_t> acked_by_;     // how many of those it has acknowledged
  std::vector<uint64_t> values_from_;  // messages taken that this rank acknowledges
  std::vector<std::vector<std::vector<int64_t>>> waiting_;  // per receiver, beyond the window
  std::vector<size_t> waiting_head_;
  size_t waiting_total_ = 0;
  bool acking_ = true;  // until the pass's close: then no rank waits for an acknowledgement
  uint64_t received_ = 0;
  bool stalled_ = false;
  bool timed_out_ = false;
  std::vector<double> ones_f_;  // S factors 1: events without a class

  const double* compute_factors(uint32_t i) const {
    const double* f = in_.factors.compute_row(i, S_);
    return f ? f : ones_f_.data();
  }
  const double* mpi_factors(uint32_t i) const {
    const double* f = in_.factors.mpi_row(i, S_);
    return f ? f : ones_f_.data();
  }

  int64_t* at(std::vector<int64_t>& v, uint32_t i) { return v.data() + static_cast<size_t>(i) * S_; }

  size_t chain_of(uint32_t i) const {
    if (lanes_) return tl_.slot(i);
    if (!cuts_.empty()) return frame(i) & (kCutWindow - 1);
    return static_cast<size_t>(std::upper_bound(chain_start_.begin(), chain_start_.end(), i) - chain_start_.begin() - 1);
  }
  size_t kept(uint32_t i) const {
    return static_cast<size_t>(std::lower_bound(keep_ev_.begin(), keep_ev_.end(), i) - keep_ev_.begin());
  }
  // The begins of the current event of i's chain (i itself, or its predecessor while i begins).
  int64_t* begin_at(uint32_t i) { return cur_.data() + chain_of(i) * S_; }
  int64_t* cb_at(uint32_t i) { return cur_cb_.data() + chain_of(i) * S_; }
  // The begins / re-timed compute of an earlier event a later end needs (kKeepBegin, kKeepCb).
  const int64_t* begin_kept(uint32_t i) { return keep_b_.data() + kept(i) * S_; }
  const int64_t* cb_kept(uint32_t i) { return keep_c_.data() + kept(i) * S_; }

  void add_dep(uint32_t i, const Partner& p) {
    if (!p.valid() || p.begin >= tl_.ev[i].end) return;
    if (p.rank == me_) {
      if (p.event < n_) local_.push_back({p.event, i}), ++pend_[i];
    } else {
      remote_.emplace_back(p.rank, p.event, i);
      ++pend_[i];
    }
  }

  int32_t world_of(int32_t rec, int32_t local) const { return rec < 0 ? local : tl_.world_rank(rec, local); }

  void setup() {
    one_.resize(S_);
    d_.resize(n_);
    pend_.assign(n_, 1);  // the own begin
    row_.assign(n_, kNoEvent);
    bool polling = false;
    ones_f_.assign(static_cast<size_t>(S_), 1.0);
    sent_to_.assign(static_cast<size_t>(np_), 0);
    values_to_.assign(static_cast<size_t>(np_), 0);
    acked_by_.assign(static_cast<size_t>(np_), 0);
    values_from_.assign(static_cast<size_t>(np_), 0);
    waiting_.resize(static_cast<size_t>(np_));
    outbox_.resize(static_cast<size_t>(np_));
    waiting_head_.assign(static_cast<size_t>(np_), 0);
    const PartnerTable& P = *in_.partners;
    const RankPag pag(tl_, ops_, P, me_);
    init_ = pag.init_event();
    finalize_ = pag.finalize_event();
    // Successors of each end (rule 1). With one recording thread (or threads that never
    // overlap in the timeline) event i's only successor is i + 1: no table (8 bytes per event).
    bool chain = true;
    for (uint32_t i = 0; i < n_ && chain; ++i) chain = tl_.prev[i] == kNoEvent || tl_.prev[i] + 1 == i;
    lanes_ = !chain;
    if (lanes_) {
      for (uint32_t i = 0; i < n_; ++i) lane_count_ = std::max(lane_count_, tl_.slot(i) + 1);
      std::vector<uint32_t> first(static_cast<size_t>(lane_count_) + 1, 0);
      for (uint32_t i = 0; i < n_; ++i) ++first[tl_.slot(i) + 1];
      for (uint32_t t = 0; t < lane_count_; ++t)
        first[t + 1] = first[t] + ((first[t + 1] + kBeginStride - 1) & ~(kBeginStride - 1));
      lane_events_.assign(first[lane_count_], kNoEvent);
      flat_of_.resize(n_);
      for (uint32_t i = 0; i < n_; ++i) {
        const uint32_t g = first[tl_.slot(i)]++;
        flat_of_[i] = g;
        lane_events_[g] = i;
      }
    }
    if (!chain) {
      succ_begin_.assign(n_ + 1, 0);
      for (uint32_t i = 0; i < n_; ++i)
        if (tl_.prev[i] != kNoEvent) ++succ_begin_[tl_.prev[i] + 1];
      for (uint32_t i = 0; i < n_; ++i) succ_begin_[i + 1] += succ_begin_[i];
      succ_.resize(succ_begin_[n_]);
      std::vector<uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
      for (uint32_t i = 0; i < n_; ++i)
        if (tl_.prev[i] != kNoEvent) succ_[fill[tl_.prev[i]]++] = i;
    }
    const std::vector<uint8_t>* complete = in_.coll_complete;
    auto is_complete = [&](uint32_t op) { return complete && op < complete->size() && (*complete)[op]; };
    const CommTable& ct = tl_.comms();
    const auto& recs = tl_.trace->comms;
    for (uint32_t i = 0; i < n_; ++i) {
      const TimelineEvent& te = tl_.ev[i];
      // The PAG's end edge decides which candidate and which poll count (below), and which
      // candidates of a held eager send stay: only one that bound, as the latest candidate,
      // in the measured run (the MPI held that send); the others began too early to hold it.
      uint32_t poll = kNoEvent, last = kNoEvent;
      const PagTarget won = pag.end_edge(i, nullptr, nullptr, &poll, &last);
      const bool partner_won = won.rank != me_ || won.event != i;
      if (i == init_) {
        if (complete && complete->size() > ops_.ops.size() && (*complete)[ops_.ops.size()]) {
          const CollKey k{kWorldCommKey, kInitSeq};
          results_.push_back({k, i});
          ++pend_[i];
          contrib_.push_back(Contribution{i, k, Pattern::All, me_, {0}, true});
          if (me_ == 0) coord_.push_back(Coordinated{k, Pattern::All, -1, np_, 0, {}, {}, {}, 0, {}, {}});
        } else {
          add_dep(i, P.init);
        }
      }
      for (uint32_t x = ops_.done_begin[i]; x < ops_.done_begin[i + 1]; ++x) {
        const uint32_t op = ops_.done_ops[x];
        const Op& o = ops_.ops[op];
        if (o.kind != OpKind::Collective) {
          const bool held = P.held_at(op);
          P.for_each(op, [&](const Partner& p) {
            if (!held || (partner_won && p.begin == won.begin)) add_dep(i, p);
          });
          continue;
        }
        const Partner& p = P.of_op[op];
        // Rule 4's progress candidate (another member's first polling call after the last
        // post): whether the MPI needed that progress shows only in the measured run, so it
        // stays only where it bound there, as a held send's candidates.
        PartnerTable::for_each_in(P.progress, op, [&](const Partner& q) {
          if (partner_won && q.rank == won.rank && q.event == won.event) add_dep(i, q);
        });
        const size_t rec = static_cast<size_t>(o.comm);
        const bool known = o.comm >= 0 && rec < ct.group.size() && ct.group[rec] >= 0 && o.post != kNoEvent &&
                           rec < recs.size() && recs[rec].size > 1;
        // A neighbourhood member sends to its out-neighbours whether or not its own
        // in-neighbours all recorded the instance (completeness is per member there).
        if (!known || (!is_complete(op) && o.pattern != Pattern::Neighbor)) {
          add_dep(i, p);
          continue;
        }
        const CollKey k{instance_key(ct.key[rec], ops_, op), o.seq};
        const int32_t size = recs[rec].size, local = recs[rec].local_rank, root = op_root(tl_, o);
        Contribution c{o.post, k, o.pattern, local, {}, false};
        uint32_t expect = 0;
        switch (o.pattern) {
          case Pattern::OneToAll:
            if (local == root) {
              for (int32_t l = 0; l < size; ++l)
                if (l != local) c.to.push_back(world_of(o.comm, l));
            } else {
              expect = 1;
            }
            break;
          case Pattern::AllToOne:
            if (local == root) expect = static_cast<uint32_t>(size - 1);
            else c.to.push_back(world_of(o.comm, root));
            break;
          case Pattern::Neighbor: {
            std::vector<int32_t> src, dst;
            neighbour_world_ranks(tl_, o.comm, np_, me_, &src, &dst);
            c.to = dst;
            if (is_complete(op)) {
              expect = static_cast<uint32_t>(src.size());
            } else {
              add_dep(i, p);
              if (!c.to.empty()) contrib_.push_back(std::move(c));
              continue;
            }
            break;
          }
          case Pattern::All:
            // A small communicator's members send their begins to each other: one message
            // hop per instance instead of two through a coordinator. Back-to-back collectives
            // are a chain of such instances, so the hops are the pass's time there (IMB-MPI1:
            // as long as the benchmark itself). Above kDirectAll members the n^2 messages
            // would cost more than the hop saves.
            if (size <= kDirectAll) {
              for (int32_t l = 0; l < size; ++l)
                if (l != local) c.to.push_back(world_of(o.comm, l));
              expect = static_cast<uint32_t>(size - 1);
              break;
            }
            [[fallthrough]];
          case Pattern::Scan:
          case Pattern::Exscan: {
            expect = 1;
            c.to.push_back(world_of(o.comm, 0));
            c.to_coordinator = true;
            if (local == 0) {
              Coordinated cs{k, o.pattern, o.comm, size, 0, {}, {}, {}, 0, {}, {}};
              coord_.push_back(std::move(cs));
            }
            break;
          }
          default:
            add_dep(i, p);
            continue;
        }
        // A blocking "all" instance of every rank may cut the run into frames (cuts_); only
        // here, where every member's record says the same, so that the ranks' lists agree.
        if (o.pattern == Pattern::All && o.post == i && size == np_ && np_ > 1) {
          cand_.push_back(i);
          cand_hash_ = fnv1a_word(fnv1a_word(cand_hash_, k.key), k.seq);
          if (!coord_.empty() && coord_.back().k == k) coord_.back().cut_event = i;
          cand_bad_.push_back(P.observed_at(op) || poll != kNoEvent || i == init_ || i == finalize_ ||
                              ops_.done_begin[i + 1] - ops_.done_begin[i] != 1);
          cand_expect_ = expect;
        }
        // A member that moves no data or did not synchronise waits only for its measured partner
        // (rule 4: the members that came later did not hold it up); it still gives its begin to
        // the others. So does one that waited beyond its pattern (a root of a broadcast above the
        // eager limit, which the pattern lets wait for nobody).
        if (P.observed_at(op) && (expect || p.valid())) {
          expect = 0;
          add_dep(i, p);
        }
        if (c.to.empty() && expect == 0) continue;
        if (expect) {
          results_.push_back({k, i});
          pend_[i] += expect;
        }
        if (!c.to.empty()) contrib_.push_back(std::move(c));
      }
      // The measured times: ready (rule 5's wait start stands in for the begin after polling)
      // and the call's own MPI time after its last dependency arrived. The PAG's end edge
      // decides which candidate and which poll count, so that the re-timing and the critical
      // path (and the wait states) agree on ties. When the own begin wins, the edge's target is
      // that begin, which is then also the latest of ready and the winning candidate.
      // After polling, the thread is ready at its first poll plus its own work after the
      // partner came (from the last poll before it): the loop's earlier chunks were waiting.
      int64_t ready = te.begin;
      if (poll != kNoEvent) {
        polling = true;
        ready = tl_.ev[poll].begin + tl_.work_between(last, i);
      }
      d_[i] = te.end - std::max(ready, won.begin);
      // A cut waits for its members and nothing else (a progress candidate, another call's).
      if (!cand_.empty() && cand_.back() == i && pend_[i] != 1 + cand_expect_) cand_bad_.back() = 1;
      // Event i's dependencies are all counted by now (pend_): a row if it waits or polls.
      if (pend_[i] > 1 || poll != kNoEvent) {
        row_[i] = static_cast<uint32_t>(row_poll_.size());
        row_poll_.push_back(poll != kNoEvent ? static_cast<uint32_t>(poll_row_.size()) : kNoEvent);
        if (poll != kNoEvent) poll_row_.emplace_back(poll, last);
      }
    }
    if (in_.release_pag) in_.release_pag();  // ops_, P, pag and complete are not read after this
    agree_candidates();
    // The new-time tables are allocated only now: until the release the ops and partners are
    // still held, and this was the what-if's peak.
    const uint32_t flat_n = lanes_ ? static_cast<uint32_t>(lane_events_.size()) : n_;
    bn_.assign(static_cast<size_t>((flat_n + kBeginStride - 1) / kBeginStride) * S_, 0);
    if (!lanes_)
      for (uint32_t i = 0; i < n_; ++i)
        if (tl_.prev[i] == kNoEvent) chain_start_.push_back(i);
    cur_.assign((lanes_ ? lane_count_ : chain_start_.size()) * S_, 0);
    const size_t rows = row_poll_.size();
    dep_.assign(rows * S_, kNone64);
    en_.assign(poll_row_.size() * S_, 0);
    if (keep_) {
      edge_at_.assign(rows, 0);
      // Virtual until written: rows of one or two vertices fit without a reallocation.
      edge_verts_.reserve(rows * (2 + (static_cast<size_t>(S_) + 63) / 64));
    }
    end_tmp_.assign(static_cast<size_t>(S_), 0);
    if (polling) cur_cb_.assign(cur_.size(), 0);
    for (Coordinated& c : coord_) {
      c.vals.assign(c.pattern == Pattern::All ? static_cast<size_t>(S_) : static_cast<size_t>(S_) * c.size, kNone64);
      if (keep_) c.who.assign(c.vals.size(), UINT64_MAX);
      if (c.pattern != Pattern::All) {
        c.came.assign(static_cast<size_t>(c.size), 0);
        c.run.assign(static_cast<size_t>(S_), kNone64);
        c.runw.assign(static_cast<size_t>(S_), UINT64_MAX);
      }
    }
    std::sort(local_.begin(), local_.end());
    // Appended in the order of this rank's events, which is mostly the order of the events
    // there, rank by rank.
    sort_by_bucket(&remote_, static_cast<size_t>(np_),
                   [](const std::tuple<int32_t, uint32_t, uint32_t>& r) { return static_cast<size_t>(std::get<0>(r)); },
                   std::less<std::tuple<int32_t, uint32_t, uint32_t>>());
    std::sort(results_.begin(), results_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::sort(coord_.begin(), coord_.end(), [](const Coordinated& a, const Coordinated& b) { return a.k < b.k; });
    std::stable_sort(contrib_.begin(), contrib_.end(),
                     [](const Contribution& a, const Contribution& b) { return a.event < b.event; });
    coord_left_ = coord_.size();
    // Subscriptions: every rank learns whose begins it must send where.
    std::vector<ByteWriter> out(static_cast<size_t>(np_));
    for (size_t x = 0; x < remote_.size();) {
      const int32_t rk = std::get<0>(remote_[x]);
      const uint32_t ev = std::get<1>(remote_[x]);
      // With cuts, also the frames of the events waiting for it (the owner checks its own).
      uint32_t lo = UINT32_MAX, hi = 0;
      for (; x < remote_.size() && std::get<0>(remote_[x]) == rk && std::get<1>(remote_[x]) == ev; ++x)
        if (!cuts_.empty()) {
          const uint32_t f = frame(std::get<2>(remote_[x]));
          lo = std::min(lo, f);
          hi = std::max(hi, f);
        }
      if (rk < 0 || rk >= np_) continue;
      out[static_cast<size_t>(rk)].put<uint32_t>(ev);
      if (!cuts_.empty()) {
        out[static_cast<size_t>(rk)].put<uint32_t>(lo);
        out[static_cast<size_t>(rk)].put<uint32_t>(hi);
      }
    }
    std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np_));
    for (int q = 0; q < np_; ++q) bufs[static_cast<size_t>(q)].swap(out[static_cast<size_t>(q)].bytes());
    const std::vector<std::vector<uint8_t>> got = exchange_bytes(bufs, comm_);
    // Each rank lists its events in order: one sorted run per rank, merged.
    std::vector<size_t> runs(1, 0);
    for (int q = 0; q < np_; ++q) {
      ByteReader rd(got[static_cast<size_t>(q)].data(), got[static_cast<size_t>(q)].size());
      uint32_t ev, lo = 0, hi = 0;
      while (rd.left() > 0 && rd.get(ev) && (cuts_.empty() || (rd.get(lo) && rd.get(hi)))) {
        if (ev >= n_) continue;
        subs_.push_back({ev, q});
        if (!cuts_.empty()) crossing(frame(ev), lo), crossing(frame(ev), hi);
      }
      runs.push_back(subs_.size());
    }
    sort_runs(subs_.begin(), runs, std::less<std::pair<uint32_t, int32_t>>());
    if (!cuts_.empty()) settle_cuts();  // the same on every rank: the candidates were agreed
    has_.assign(n_, 0);
    for (const auto& l : local_) has_[l.first] |= kHasLocal;
    for (const auto& x : subs_) has_[x.first] |= kHasSub;
    for (const Contribution& c : contrib_)
      if (c.event < n_) has_[c.event] |= kHasContrib;
    for (const auto& [p, q] : poll_row_) {
      if (p != kNoEvent) has_[p] |= kKeepBegin;
      if (q != kNoEvent) has_[q] |= kKeepCb;
    }
    if (finalize_ != kNoEvent) has_[finalize_] |= kKeepBegin;
    // A thread's first call follows another thread's (rule 1), which its lane has left.
    if (lanes_)
      for (uint32_t i = 0; i < n_; ++i)
        if (tl_.prev[i] != kNoEvent && tl_.slot(tl_.prev[i]) != tl_.slot(i)) has_[tl_.prev[i]] |= kKeepBegin | kKeepCb;
    for (uint32_t i = 0; i < n_; ++i)
      if (has_[i] & (kKeepBegin | kKeepCb)) keep_ev_.push_back(i);
    keep_b_.assign(keep_ev_.size() * S_, 0);
    if (polling) keep_c_.assign(keep_ev_.size() * S_, 0);
    for (uint32_t i = 0; i < n_; ++i)
      if (tl_.prev[i] == kNoEvent) ready_.push_back(2 * i);
    for (uint32_t c : cuts_) has_[c] |= kCut;
    if (!cuts_.empty()) {
      slot_busy_.assign(kCutWindow, 0);
      slot_busy_[0] = 1;  // frame 0, begun above
      start_frames();
    }
  }

  // Frames begin in order, each in the slot of the frame kCutWindow before it once that one
  // ended (end_frame), and only while no values wait for a receiver's acknowledgement: a rank
  // that needs nothing from others in many frames (a pipeline's first stage) would otherwise
  // make all their values at once (lu_wavefront: 50 bytes per event more at the what-if's peak).
  void start_frames() {
    while (next_frame_ <= cuts_.size() && !slot_busy_[next_frame_ & (kCutWindow - 1)] && waiting_total_ == 0) {
      const size_t f = next_frame_++;
      slot_busy_[f & (kCutWindow - 1)] = 1;
      const uint32_t first = cuts_[f - 1] + 1;
      if (first < n_ && tl_.prev[first] == cuts_[f - 1]) ready_.push_back(2 * first);
    }
  }

  // The ranks agree on the candidate cuts (the same instances in the same order, every rank
  // one chain of calls) and keep those no rank rules out. Collective.
  void agree_candidates() {
    uint32_t starts = 0;
    for (uint32_t i = 0; i < n_; ++i) starts += tl_.prev[i] == kNoEvent;
    const uint64_t able = !lanes_ && starts == 1 && np_ > 1;
    const uint64_t h = cand_hash_;
    // min(x) = ~max(~x): one reduction for both. Signed: MPICH 4.0.2 orders unsigned 64-bit
    // integers as signed in MPI_MIN and MPI_MAX (docs/what-if.md, "Frames").
    long long v[6] = {static_cast<long long>(able), static_cast<long long>(cand_.size()), static_cast<long long>(h), 0, 0, 0}, top[6];
    for (int x = 0; x < 3; ++x) v[3 + x] = ~v[x];
    tool_allreduce(v, top, 6, MPI_LONG_LONG, MPI_MAX, comm_);
    const bool agree = ~top[3] == 1 && top[1] == ~top[4] && top[2] == ~top[5] && top[1] > 0 && top[1] < INT_MAX;
    if (agree) {
      tool_allreduce(MPI_IN_PLACE, cand_bad_.data(), static_cast<int>(cand_bad_.size()), MPI_UNSIGNED_CHAR, MPI_MAX, comm_);
      for (size_t m = 0; m < cand_.size(); ++m)
        if (!cand_bad_[m]) cuts_.push_back(cand_[m]);
    }
    std::vector<uint8_t>().swap(cand_bad_);
    std::vector<uint32_t>().swap(cand_);
    if (cuts_.empty()) return;  // on every rank: the list and the reduction are the same
    index_cuts();
    cross_.assign(cuts_.size() + 1, 0);
  }

  // A dependency from frame a to frame b: no cut between them may stay.
  std::vector<int32_t> cross_;  // difference array over cuts (cut m: cross_[0..m] summed > 0)
  void crossing(uint32_t a, uint32_t b) {
    if (a == b) return;
    if (a > b) std::swap(a, b);
    ++cross_[a];
    --cross_[std::min<size_t>(b, cuts_.size())];
  }

  // Every dependency checked against the candidate frames (the remote ones as the
  // subscriptions came): the cuts any rank saw crossed are dropped everywhere, and the rest
  // lose their instances' dependencies. Collective.
  void settle_cuts() {
    for (const auto& [e, x] : local_) crossing(frame(e), frame(x));
    for (uint32_t i = 0; i < n_; ++i) {
      const uint32_t r = row_[i];
      if (r == kNoEvent || row_poll_[r] == kNoEvent) continue;
      const auto [p, q] = poll_row_[row_poll_[r]];
      if (p != kNoEvent) crossing(frame(p), frame(i));
      if (q != kNoEvent) crossing(frame(q), frame(i));
    }
    // Collective instances other than the cuts: every member's posting and waiting events
    // in one frame, checked by one rank per instance.
    std::vector<std::tuple<CollKey, uint32_t, uint32_t>> mine;
    for (const Contribution& c : contrib_)
      if (c.event < n_ && !is_cut(c.event)) mine.emplace_back(c.k, frame(c.event), frame(c.event));
    for (const auto& [k, x] : results_)
      if (x < n_ && !is_cut(x)) mine.emplace_back(k, frame(x), frame(x));
    // One (key, lowest frame, highest frame) per instance.
    auto merge = [](std::vector<std::tuple<CollKey, uint32_t, uint32_t>>* v) {
      std::sort(v->begin(), v->end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
      size_t w = 0;
      for (size_t x = 0; x < v->size(); ++x) {
        auto& [k, lo, hi] = (*v)[x];
        if (w > 0 && std::get<0>((*v)[w - 1]) == k) {
          std::get<1>((*v)[w - 1]) = std::min(std::get<1>((*v)[w - 1]), lo);
          std::get<2>((*v)[w - 1]) = std::max(std::get<2>((*v)[w - 1]), hi);
        } else {
          (*v)[w++] = (*v)[x];
        }
      }
      v->resize(w);
    };
    merge(&mine);
    std::vector<ByteWriter> out(static_cast<size_t>(np_));
    for (const auto& [k, lo, hi] : mine) {
      ByteWriter& o = out[fnv1a_word(fnv1a_word(kFnv1aBasis, k.key), k.seq) % static_cast<uint64_t>(np_)];
      o.put<uint64_t>(k.key);
      o.put<uint32_t>(k.seq);
      o.put<uint32_t>(lo);
      o.put<uint32_t>(hi);
    }
    std::vector<std::tuple<CollKey, uint32_t, uint32_t>>().swap(mine);
    std::vector<std::vector<uint8_t>> bufs(static_cast<size_t>(np_));
    for (int q = 0; q < np_; ++q) bufs[static_cast<size_t>(q)].swap(out[static_cast<size_t>(q)].bytes());
    {
      const std::vector<std::vector<uint8_t>> got = exchange_bytes(bufs, comm_);
      std::vector<std::tuple<CollKey, uint32_t, uint32_t>> all;
      for (const auto& g : got) {
        ByteReader rd(g.data(), g.size());
        uint64_t key;
        uint32_t seq, lo, hi;
        while (rd.left() > 0 && rd.get(key) && rd.get(seq) && rd.get(lo) && rd.get(hi))
          all.emplace_back(CollKey{key, seq}, std::min<uint32_t>(lo, static_cast<uint32_t>(cuts_.size())),
                           std::min<uint32_t>(hi, static_cast<uint32_t>(cuts_.size())));
      }
      merge(&all);
      for (const auto& [k, lo, hi] : all) crossing(lo, hi);
    }
    const size_t H = cuts_.size();
    std::vector<uint8_t> bad(H, 0);
    int64_t run = 0;
    for (size_t m = 0; m < H; ++m) bad[m] = (run += cross_[m]) > 0;
    std::vector<int32_t>().swap(cross_);
    tool_allreduce(MPI_IN_PLACE, bad.data(), static_cast<int>(H), MPI_UNSIGNED_CHAR, MPI_MAX, comm_);
    size_t w = 0;
    for (size_t m = 0; m < H; ++m)
      if (!bad[m]) cuts_[w++] = cuts_[m];
    cuts_.resize(w);
    cuts_.shrink_to_fit();
    index_cuts();
    contrib_.erase(std::remove_if(contrib_.begin(), contrib_.end(), [&](const Contribution& c) { return is_cut(c.event); }),
                   contrib_.end());
    results_.erase(std::remove_if(results_.begin(), results_.end(), [&](const auto& r) { return is_cut(r.second); }),
                   results_.end());
    coord_.erase(std::remove_if(coord_.begin(), coord_.end(),
                                [&](const Coordinated& c) { return c.cut_event != kNoEvent && is_cut(c.cut_event); }),
                 coord_.end());
    coord_left_ = coord_.size();
    for (uint32_t c : cuts_) pend_[c] = 1;  // its own begin only
    if (cuts_.empty()) return;
    cur_.assign(static_cast<size_t>(kCutWindow) * S_, 0);
    if (!cur_cb_.empty()) cur_cb_.assign(cur_.size(), 0);
  }

  // `who`: the vertex of each value (keep_run only). A value for another rank waits in its
  // outbox until the outbox is full, this rank runs out of work or has done kFlushEvery more
  // steps (flush_all): one message then carries many values, where frames (cuts_) make many
  // ready at once.
  void send(int dest, int64_t type, int64_t a, int64_t b, const int64_t* vals, const uint64_t* who) {
    std::vector<int64_t>* box = &self_box_;
    if (dest != me_) {
      box = &outbox_[static_cast<size_t>(dest)];
      if (box->empty()) {
        dirty_.push_back(dest);
        if (box->capacity() == 0 && !free_bufs_.empty()) {
          box->swap(free_bufs_.back());
          free_bufs_.pop_back();
          box->clear();
        }
      }
    }
    const size_t at = box->size();
    box->resize(at + msg_len_);
    int64_t* m = box->data() + at;
    m[0] = type;
    m[1] = a;
    m[2] = b;
    std::copy(vals, vals + S_, m + kHeader);
    if (keep_)
      for (int s = 0; s < S_; ++s) m[kHeader + S_ + s] = static_cast<int64_t>(who[s]);
    if (dest == me_) {
      std::vector<int64_t> one;
      one.swap(self_box_);  // handling it may send to self again
      handle_record(me_, one.data());
      one.clear();
      if (self_box_.empty()) self_box_.swap(one);
      return;
    }
    if (box->size() >= batch_len()) flush_to(dest);
  }

  void flush_all() {
    for (int dest : dirty_)
      if (!outbox_[static_cast<size_t>(dest)].empty()) flush_to(dest);
    dirty_.clear();
  }

  void flush_to(int dest) {
    const size_t d = static_cast<size_t>(dest);
    std::vector<int64_t> m;
    m.swap(outbox_[d]);
    if (waiting_head_[d] < waiting_[d].size() || values_to_[d] - acked_by_[d] >= kWindow) {
      waiting_[d].push_back(std::move(m));
      ++waiting_total_;
      return;
    }
    values_to_[d] += m.size() / msg_len_;
    post(dest, std::move(m));
  }

  void post(int dest, std::vector<int64_t>&& m) {
    MPI_Request rq;
    PMPI_Isend(m.data(), static_cast<int>(m.size()), MPI_INT64_T, dest, kFwdTag, comm_, &rq);
    out_words_ += m.capacity();
    out_bufs_.push_back(std::move(m));
    out_reqs_.push_back(rq);
    ++sent_to_[static_cast<size_t>(dest)];
    if (out_reqs_.size() >= reclaim_at_ || out_words_ >= reclaim_words_) reclaim();
  }

  // The flow-control part of a message from another rank: an acknowledgement lets waiting
  // messages go; every kAckEvery-th other message is acknowledged. True for an acknowledgement.
  bool flow(int src, const int64_t* m, size_t len) {
    const size_t s = static_cast<size_t>(src);
    if (m[0] == kMsgAck) {
      acked_by_[s] = std::max(acked_by_[s], static_cast<uint64_t>(m[1]));
      auto& q = waiting_[s];
      size_t& h = waiting_head_[s];
      for (; h < q.size() && values_to_[s] - acked_by_[s] < kWindow; ++h, --waiting_total_) {
        values_to_[s] += q[h].size() / msg_len_;
        post(src, std::move(q[h]));
      }
      if (h == q.size()) {
        q.clear();
        h = 0;
      }
      return true;
    }
    const uint64_t before = values_from_[s];
    values_from_[s] += len / msg_len_;
    if (before / kAckEvery != values_from_[s] / kAckEvery && acking_) {
      std::vector<int64_t> a(msg_len_, 0);
      a[0] = kMsgAck;
      a[1] = static_cast<int64_t>(values_from_[s]);
      post(src, std::move(a));
    }
    return false;
  }

  void reclaim() {
    std::vector<int> idx(out_reqs_.size());
    int outc = 0;
    PMPI_Testsome(static_cast<int>(out_reqs_.size()), out_reqs_.data(), &outc, idx.data(), MPI_STATUSES_IGNORE);
    if (outc <= 0) {
      reclaim_at_ = std::max<size_t>(4096, 2 * out_reqs_.size());
      reclaim_words_ = std::max(kReclaimWords, 2 * out_words_);
      return;
    }
    size_t w = 0;
    out_words_ = 0;
    for (size_t r = 0; r < out_reqs_.size(); ++r) {
      if (out_reqs_[r] == MPI_REQUEST_NULL) {
        // A few kept for the next messages; a burst's many would stay as the pass's peak.
        if (free_bufs_.size() < kFreeBufs) free_bufs_.push_back(std::move(out_bufs_[r]));
        else std::vector<int64_t>().swap(out_bufs_[r]);
        continue;
      }
      out_words_ += out_bufs_[r].capacity();
      // Never a buffer moved onto itself: a self-move empties a std::vector, which freed the
      // buffer of a send still in flight and handed an empty one to the next send (SIGSEGV in
      // MPI_Finalize on MPICH's threads/pt2pt/threads, 2.5 M events on 2 ranks).
      if (w != r) {
        out_reqs_[w] = out_reqs_[r];
        out_bufs_[w] = std::move(out_bufs_[r]);
      }
      ++w;
    }
    out_reqs_.resize(w);
    out_bufs_.resize(w);
    // Sends the receivers have not taken yet stay; test them again only after as many more.
    reclaim_at_ = std::max<size_t>(4096, 2 * w);
    reclaim_words_ = std::max<size_t>(kReclaimWords, 2 * out_words_);
  }

  // The latest value wins, ties to the lowest vertex (rank, event): an order the reference
  // can reproduce whatever order the values arrive in.
  static void take_latest(int64_t* d, uint64_t* dw, const int64_t* v, const uint64_t* w, int S) {
    for (int s = 0; s < S; ++s)
      if (v[s] > d[s] || (v[s] == d[s] && w[s] < dw[s])) d[s] = v[s], dw[s] = w[s];
  }

  const uint64_t* ones(uint32_t event) {
    std::fill(one_.begin(), one_.end(), pack_vertex(me_, event));
    return one_.data();
  }

  // Row r's S vertices, in a slot taken at its first use (valid until the next who_row).
  uint64_t* who_row(uint32_t r) {
    uint64_t& a = edge_at_[r];
    if (a == 0) {
      size_t slot;
      if (!who_free_.empty()) {
        slot = who_free_.back();
        who_free_.pop_back();
      } else {
        slot = who_pool_.size() / static_cast<size_t>(S_);
        who_pool_.resize(who_pool_.size() + static_cast<size_t>(S_));
      }
      std::fill_n(who_pool_.begin() + static_cast<std::ptrdiff_t>(slot * static_cast<size_t>(S_)), S_, UINT64_MAX);
      a = slot + 1;
    }
    return who_pool_.data() + (a - 1) * static_cast<size_t>(S_);
  }
  // Row r's vertices are final (its end is re-timed): packed, its slot free again.
  void seal(uint32_t r) {
    uint64_t& a = edge_at_[r];
    const size_t slot = a - 1;
    a = RetimedRun::pack_edges(who_pool_.data() + slot * static_cast<size_t>(S_), S_, &edge_verts_);
    who_free_.push_back(static_cast<uint32_t>(slot));
  }

  void fold(uint32_t i, const int64_t* v, const uint64_t* w) {
    const uint32_t r = row_[i];  // every event that is folded into has one (pend_ > 1)
    int64_t* d = at(dep_, r);
    if (!keep_) {
      for (int s = 0; s < S_; ++s) d[s] = std::max(d[s], v[s]);
    } else if ((edge_at_[r] >> RetimedRun::kEdgeKindShift) == 0) {
      // A value for a row whose end is re-timed already would mean a broken count (pend_): it
      // is dropped rather than written through a packed word (a crash in someone's Finalize).
      take_latest(d, who_row(r), v, w, S_);
    }
    if (--pend_[i] == 0) ready_.push_back(2 * i + 1);
  }

  // A message of `len` int64s: an acknowledgement, or values one after another.
  void handle(int src, const int64_t* m, size_t len) {
    if (src != me_ && flow(src, m, len)) return;
    for (size_t at = 0; at + msg_len_ <= len; at += msg_len_) handle_record(src, m + at);
  }

  void handle_record(int src, const int64_t* m) {
    const int64_t* v = m + kHeader;
    const uint64_t* w = keep_ ? reinterpret_cast<const uint64_t*>(m + kHeader + S_) : nullptr;
    if (m[0] == kMsgValue) {
      const uint32_t ev = static_cast<uint32_t>(m[1]);
      auto lo = std::lower_bound(remote_.begin(), remote_.end(), std::make_tuple(static_cast<int32_t>(src), ev, 0u));
      for (; lo != remote_.end() && std::get<0>(*lo) == src && std::get<1>(*lo) == ev; ++lo) fold(std::get<2>(*lo), v, w);
      return;
    }
    const CollKey k{static_cast<uint64_t>(m[1]), static_cast<uint32_t>(static_cast<uint64_t>(m[2]) & 0xffffffffu)};
    if (m[0] == kMsgResult) {
      auto lo = std::lower_bound(results_.begin(), results_.end(), k, [](const auto& a, const CollKey& x) { return a.first < x; });
      for (; lo != results_.end() && lo->first == k; ++lo) fold(lo->second, v, w);
      return;
    }
    if (m[0] != kMsgContrib) return;
    auto it = std::lower_bound(coord_.begin(), coord_.end(), k, [](const Coordinated& a, const CollKey& x) { return a.k < x; });
    if (it == coord_.end() || !(it->k == k)) return;
    Coordinated& c = *it;
    const int32_t local = static_cast<int32_t>(static_cast<uint64_t>(m[2]) >> 32);
    if (c.pattern == Pattern::All) {
      if (keep_) take_latest(c.vals.data(), c.who.data(), v, w, S_);
      else
        for (int s = 0; s < S_; ++s) c.vals[static_cast<size_t>(s)] = std::max(c.vals[static_cast<size_t>(s)], v[s]);
    } else if (local >= 0 && local < c.size && !c.came[static_cast<size_t>(local)]) {
      std::copy(v, v + S_, c.vals.begin() + static_cast<size_t>(local) * S_);
      if (keep_) std::copy(w, w + S_, c.who.begin() + static_cast<size_t>(local) * S_);
      c.came[static_cast<size_t>(local)] = 1;
    }
    const int64_t kb = m[1], sb = static_cast<int64_t>(k.seq);
    if (c.pattern != Pattern::All) {
      // A scan member waits for the members below it (and itself, unless exclusive), not for
      // the ones above: it is answered as soon as those came. Waiting for every member made
      // the pass wait where the run did not: a lower member that completed its scan and then
      // sent to a higher one before that one posted (a cycle of the pass's own making, MPICH's
      // coll/nonblocking3 at 5 ranks, 30 s and no what-if).
      auto add = [&](int32_t l) {
        const size_t o = static_cast<size_t>(l) * S_;
        if (keep_) take_latest(c.run.data(), c.runw.data(), c.vals.data() + o, c.who.data() + o, S_);
        else
          for (int s = 0; s < S_; ++s) c.run[static_cast<size_t>(s)] = std::max(c.run[static_cast<size_t>(s)], c.vals[o + s]);
      };
      // Member next waits for members 0..last (an exclusive scan's member 0 for nobody).
      for (int32_t last = c.pattern == Pattern::Scan ? c.next : c.next - 1;
           c.next < c.size && (last < 0 || c.came[static_cast<size_t>(last)]); ++c.next, ++last) {
        if (last >= 0) add(last);
        send(world_of(c.rec, c.next), kMsgResult, kb, sb, c.run.data(), c.runw.data());
      }
    }
    if (++c.got < c.size) return;
    --coord_left_;
    if (c.pattern == Pattern::All) {
      const std::vector<int64_t> res = c.vals;
      const std::vector<uint64_t> resw = c.who;
      for (int32_t l = 0; l < c.size; ++l) send(world_of(c.rec, l), kMsgResult, kb, sb, res.data(), resw.data());
    }
    std::vector<int64_t>().swap(c.vals);
    std::vector<uint64_t>().swap(c.who);
    std::vector<uint8_t>().swap(c.came);
    std::vector<int64_t>().swap(c.run);
    std::vector<uint64_t>().swap(c.runw);
  }

  void do_begin(uint32_t j) {
    const TimelineEvent& te = tl_.ev[j];
    const double* cf = compute_factors(j);
    const uint32_t p = tl_.prev[j];
    const bool cbs = !cur_cb_.empty();
    if (p == kNoEvent) {
      int64_t* b = begin_at(j);
      for (int s = 0; s < S_; ++s) b[s] = retimed_first_begin(tl_, j, in_.job_begin, startup_factor(in_.startup, s));
      if (cbs) std::fill(cb_at(j), cb_at(j) + S_, 0);
    } else {
      const int64_t gap = te.begin - tl_.ev[p].end;
      // Before p's begin is overwritten (chains: the same slot); another lane's p was kept.
      const bool other_lane = lanes_ && tl_.slot(p) != tl_.slot(j);
      // After a cut: its end in j's frame, where the cut's latest member began at 0.
      const bool after_cut = (has_[p] & kCut) != 0;
      const int64_t* e = after_cut ? cut_end(p) : other_lane ? end_kept(p) : end_of(p);
      int64_t* b = begin_at(j);
      for (int s = 0; s < S_; ++s) b[s] = retimed_next_begin(tl_, j, e[s], cf[s]);
      if (cbs) {
        // The thread's work, as rule 5 counts it (a descheduled gap before a poll is not work),
        // so that the identity scenario reproduces the measured ready time after a polling
        // loop: these sum to work_between(last, i).
        const int64_t work = tl_.slot(p) == tl_.slot(j) ? tl_.work_between(p, j) : gap;
        int64_t* c = cb_at(j);
        const int64_t* cp = other_lane ? cb_kept(p) : c;
        // A frame's re-timed compute counts from 0 (only differences within one are read).
        for (int s = 0; s < S_; ++s) c[s] = (after_cut ? 0 : cp[s]) + scale_ns(work, cf[s]);
      }
    }
    const int64_t* b = begin_at(j);
    const uint32_t g = lanes_ ? flat_of_[j] : j;
    if (g % kBeginStride == 0) std::copy(b, b + S_, at(bn_, g / kBeginStride));
    if (has_[j] & kKeepBegin) std::copy(b, b + S_, keep_b_.data() + kept(j) * S_);
    if ((has_[j] & kKeepCb) && cbs) std::copy(cb_at(j), cb_at(j) + S_, keep_c_.data() + kept(j) * S_);
    // Whoever waits for this begin learns it now.
    const uint64_t* wj = ones(j);
    const uint8_t has = has_[j];
    if (has & kHasLocal)
      for (auto it = std::lower_bound(local_.begin(), local_.end(), std::make_pair(j, 0u)); it != local_.end() && it->first == j; ++it)
        fold(it->second, b, wj);
    if (has & kHasSub)
      for (auto it = std::lower_bound(subs_.begin(), subs_.end(), std::make_pair(j, INT32_MIN)); it != subs_.end() && it->first == j; ++it)
        send(it->second, kMsgValue, j, 0, b, wj);
    if (has & kHasContrib)
      for (auto it = std::lower_bound(contrib_.begin(), contrib_.end(), j, [](const Contribution& c, uint32_t e) { return c.event < e; });
           it != contrib_.end() && it->event == j; ++it) {
        const int64_t packed = static_cast<int64_t>((static_cast<uint64_t>(it->local) << 32) | it->k.seq);
        for (int32_t dest : it->to)
          send(dest, it->to_coordinator ? kMsgContrib : kMsgResult, static_cast<int64_t>(it->k.key),
               it->to_coordinator ? packed : static_cast<int64_t>(it->k.seq), b, wj);
      }
    if (--pend_[j] == 0) ready_.push_back(2 * j + 1);
  }

  // The new ends of event i (S values; for an event without a row, valid until the next call).
  const int64_t* end_of(uint32_t i) { return end_given(i, nullptr); }
  // The same for an event its chain has left, whose begin was kept (kKeepBegin).
  const int64_t* end_kept(uint32_t i) { return end_given(i, begin_kept(i)); }
  const int64_t* end_given(uint32_t i, const int64_t* b) {
    const uint32_t r = row_[i];
    if (r != kNoEvent && row_poll_[r] != kNoEvent) return at(en_, row_poll_[r]);
    if (!b) b = begin_at(i);
    const double* mf = mpi_factors(i);
    // A waiting event without polling: ready is its begin (end_with_row); keep_run's edge
    // rewrite leaves dep_ at max(begin, dep), which gives the same.
    const int64_t* dp = r != kNoEvent ? at(dep_, r) : nullptr;
    for (int s = 0; s < S_; ++s)
      end_tmp_[static_cast<size_t>(s)] = (dp ? std::max(b[s], dp[s]) : b[s]) + scale_ns(d_[i], mf[s]);
    return end_tmp_.data();
  }

  const int64_t* cut_end(uint32_t c) {
    const double* mf = mpi_factors(c);
    for (int s = 0; s < S_; ++s) end_tmp_[static_cast<size_t>(s)] = scale_ns(d_[c], mf[s]);
    return end_tmp_.data();
  }

  // Cut m's begin ends frame m: kept for the offsets in its row's dep_ (unused until then),
  // and frame m + kCutWindow takes its slot.
  void end_frame(uint32_t c) {
    const size_t m = frame(c);
    const int64_t* b = begin_at(c);
    std::copy(b, b + S_, at(dep_, row_[c]));
    slot_busy_[m & (kCutWindow - 1)] = 0;
    start_frames();
  }

  void do_end(uint32_t i) {
    if (has_[i] & kCut) return end_frame(i);  // its successor began with its frame
    const uint32_t r = row_[i];
    // Without a row: nothing waited for, no polling; the end follows from the begin (end_of).
    if (r != kNoEvent) end_with_row(i, r);
    if (succ_begin_.empty()) {
      if (i + 1 < n_ && tl_.prev[i + 1] == i) ready_.push_back(2 * (i + 1));
    } else {
      for (uint32_t x = succ_begin_[i]; x < succ_begin_[i + 1]; ++x) ready_.push_back(2 * succ_[x]);
    }
  }

  void end_with_row(uint32_t i, uint32_t r) {
    const double* mf = mpi_factors(i);
    const uint32_t pr = row_poll_[r];
    const auto [p, q] = pr != kNoEvent ? poll_row_[pr] : std::pair<uint32_t, uint32_t>(kNoEvent, kNoEvent);
    // Only a polling row keeps its new end; the others' is recomputed (end_of).
    int64_t* e = p != kNoEvent ? at(en_, pr) : end_tmp_.data();
    const int64_t* b = begin_at(i);
    int64_t* dp = at(dep_, r);
    uint64_t* w = keep_ ? who_row(r) : nullptr;
    const int64_t* pb = p == kNoEvent ? nullptr : begin_kept(p);
    const int64_t* ci = p == kNoEvent ? nullptr : cb_at(i);
    const int64_t* cq = p == kNoEvent ? nullptr : cb_kept(q);
    for (int s = 0; s < S_; ++s) {
      // One `ready` for the new end and its edge: the edge must name what set the time, or the
      // new path differs from the reference's while the run times agree (both count the
      // loop's work from its last poll before the partner, q, not from the first poll p).
      const int64_t ready = p == kNoEvent ? b[s] : pb[s] + (ci[s] - cq[s]);
      e[s] = std::max(ready, dp[s]) + scale_ns(d_[i], mf[s]);
      // keep_run: dep_ and the row's vertices become the end edge, the own begin unless a dependency came
      // later; after a polling loop the thread may be ready before the call's new begin (a
      // partner that comes earlier ends the loop earlier), and then the loop's first poll set
      // the end: an edge to the own begin, later than the end, drew negative MPI time.
      if (w && dp[s] <= ready) {
        if (p != kNoEvent && ready < b[s]) dp[s] = pb[s], w[s] = pack_vertex(me_, p);
        else dp[s] = b[s], w[s] = pack_vertex(me_, i);
      }
    }
    if (w) seal(r);
  }

  // One PMPI_Start each, in ring order: MPI_Startall may start its requests in any order.
  void post_ring() {
    ring_buf_.assign(kRing * batch_len(), 0);
    ring_.assign(kRing, MPI_REQUEST_NULL);
    for (size_t k = 0; k < kRing; ++k) {
      PMPI_Recv_init(ring_buf_.data() + k * batch_len(), static_cast<int>(batch_len()), MPI_INT64_T, MPI_ANY_SOURCE, kFwdTag,
                     comm_, &ring_[k]);
      PMPI_Start(&ring_[k]);
    }
  }

  void loop() {
    uint32_t since_clock = 0, since_flush = 0;
    while (done_ < 2ull * n_ || coord_left_ > 0) {
      if (!ready_.empty()) {
        if (++since_clock == 4096) {  // a clock read per 4096 events: nothing next to the work
          since_clock = 0;
          if (PMPI_Wtime() > in_.deadline) {
            timed_out_ = true;
            return;
          }
        }
        const uint32_t v = ready_.back();
        ready_.pop_back();
        ++done_;
        if (++since_flush == kFlushEvery) {
          since_flush = 0;
          flush_all();
        }
        if (v & 1) do_end(v >> 1);
        else do_begin(v >> 1);
        continue;
      }
      flush_all();
      if (!cuts_.empty()) {
        start_frames();
        if (!ready_.empty()) continue;
      }
      MPI_Status st;
      const int64_t* m = next_message(&st, std::min(PMPI_Wtime() + in_.stall_s, in_.deadline));
      if (!m) {
        // finish() tells every rank; the values left waiting are dropped
        (PMPI_Wtime() >= in_.deadline ? timed_out_ : stalled_) = true;
        return;
      }
      int len = 0;
      PMPI_Get_count(&st, MPI_INT64_T, &len);
      handle(st.MPI_SOURCE, m, len > 0 ? static_cast<size_t>(len) : 0);
      release_message();
    }
    flush_all();
  }

  // The ring's next message (its head), or nullptr at `deadline`; valid until release_message(),
  // which posts that receive again at the back of the ring.
  const int64_t* next_message(MPI_Status* st, double deadline) {
    if (!test_yielding_until(&ring_[head_], st, deadline)) return nullptr;
    ++received_;
    return ring_buf_.data() + head_ * batch_len();
  }
  void release_message() {
    PMPI_Start(&ring_[head_]);
    head_ = (head_ + 1) % kRing;
  }

  // The frames' offsets: frame m + 1 begins where cut m's latest member began, T(m + 1) =
  // T(m) + the largest of the members' begins in frame m (T(0) = 0: frame 0 is absolute). Each
  // kept time gets its frame's offset; a cut's edge is its latest member's begin (its own on a
  // tie, else the lowest vertex among the latest, as take_latest and end_with_row choose).
  void resolve_cuts() {
    const size_t H = cuts_.size(), S = static_cast<size_t>(S_);
    std::vector<int64_t> mine(std::min(H, kCutChunk) * S), top(mine.size());
    std::vector<long long> who, least;  // packed vertices are below 2^63; signed as above
    std::vector<uint64_t> w(S);
    for (size_t m0 = 0; m0 < H; m0 += kCutChunk) {
      const size_t cnt = std::min(kCutChunk, H - m0);
      int64_t* d = mine.data();
      for (size_t m = 0; m < cnt; ++m) std::copy_n(at(dep_, row_[cuts_[m0 + m]]), S, d + m * S);
      tool_allreduce(d, top.data(), static_cast<int>(cnt * S), MPI_INT64_T, MPI_MAX, comm_);
      if (keep_) {
        who.assign(cnt * S, LLONG_MAX);
        least.resize(cnt * S);
        for (size_t x = 0; x < cnt * S; ++x)
          if (d[x] == top[x]) who[x] = static_cast<long long>(pack_vertex(me_, cuts_[m0 + x / S]));
        tool_allreduce(who.data(), least.data(), static_cast<int>(cnt * S), MPI_LONG_LONG, MPI_MIN, comm_);
        for (size_t m = 0; m < cnt; ++m) {
          for (size_t s = 0; s < S; ++s)
            w[s] = static_cast<uint64_t>(d[m * S + s] == top[m * S + s] ? who[m * S + s] : least[m * S + s]);
          edge_at_[row_[cuts_[m0 + m]]] = RetimedRun::pack_edges(w.data(), S_, &edge_verts_);
        }
      }
      // The frame's length (the latest member's begin in it) replaces the own begin.
      for (size_t m = 0; m < cnt; ++m) std::copy_n(top.data() + m * S, S, at(dep_, row_[cuts_[m0 + m]]));
    }
    std::vector<int64_t> T(S, 0);
    auto shift = [&](int64_t* v) {
      for (size_t s = 0; s < S; ++s) v[s] += T[s];
    };
    size_t m = 0, k = 0;
    for (uint32_t i = 0; i < n_; ++i) {
      if (i % kBeginStride == 0) shift(at(bn_, i / kBeginStride));
      if (has_[i] & (kKeepBegin | kKeepCb)) {
        if (has_[i] & kKeepBegin) shift(keep_b_.data() + k * S);
        ++k;
      }
      const uint32_t r = row_[i];
      if (m < H && cuts_[m] == i) {
        int64_t* dp = at(dep_, r);
        for (size_t s = 0; s < S; ++s) dp[s] = T[s] += dp[s];
        ++m;
      } else if (r != kNoEvent) {
        int64_t* dp = at(dep_, r);
        for (size_t s = 0; s < S; ++s)
          if (dp[s] != kNone64) dp[s] += T[s];
        if (row_poll_[r] != kNoEvent) shift(at(en_, row_poll_[r]));
      }
    }
  }

  void finish(ForwardResult* r) {
    // Messages nobody waited for (a neighbourhood instance incomplete at the receiver) are
    // taken off the wire before the pass returns.
    // First every rank's messages beyond the window go out, which needs the receivers'
    // acknowledgements: each rank keeps taking messages (and acknowledging) until all have
    // nothing left waiting. After that nobody waits for an acknowledgement, and none is sent:
    // the counts below are final.
    auto take = [&](MPI_Status* st) {
      int flag = 0;
      PMPI_Test(&ring_[head_], &flag, st);
      if (!flag) return false;
      ++received_;
      int len = 0;
      PMPI_Get_count(st, MPI_INT64_T, &len);
      flow(st->MPI_SOURCE, ring_buf_.data() + head_ * batch_len(), len > 0 ? static_cast<size_t>(len) : 0);
      release_message();
      return true;
    };
    MPI_Status st;
    poll_yielding([&] { return take(&st) ? false : waiting_total_ == 0; });
    MPI_Request all_out;
    PMPI_Ibarrier(comm_, &all_out);
    poll_yielding([&] {
      int flag = 0;
      PMPI_Test(&all_out, &flag, MPI_STATUS_IGNORE);
      return flag != 0 || (take(&st), false);
    });
    acking_ = false;
    std::vector<unsigned long long> sent(sent_to_.begin(), sent_to_.end());
    unsigned long long expected = 0;
    std::vector<int> ones(static_cast<size_t>(np_), 1);
    tool_reduce_scatter(sent.data(), &expected, ones.data(), MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_);
    // A message that does not come within stall_s was lost inside MPI: the pass says it
    // stalled instead of waiting in MPI_Finalize for ever.
    while (received_ < expected) {
      if (!next_message(MPI_STATUS_IGNORE, PMPI_Wtime() + in_.stall_s)) {
        stalled_ = true;
        break;
      }
      release_message();
    }
    // Every message sent to this rank has arrived. The ring's receives are completed by
    // messages to self (matched in ring order, nothing else is on the way) instead of cancelled:
    // cancelling any-source receives has been fragile in MPICH's ch4 (pmodels/mpich#7203).
    const std::vector<int64_t> closing(msg_len_, 0);
    std::vector<MPI_Request> to_self(kRing, MPI_REQUEST_NULL);
    for (MPI_Request& r : to_self)
      PMPI_Isend(closing.data(), static_cast<int>(msg_len_), MPI_INT64_T, me_, kFwdTag, comm_, &r);
    waitall_yielding(static_cast<int>(kRing), ring_.data());
    waitall_yielding(static_cast<int>(kRing), to_self.data());
    for (MPI_Request& r : ring_) PMPI_Request_free(&r);
    if (!out_reqs_.empty()) waitall_yielding(static_cast<int>(out_reqs_.size()), out_reqs_.data());
    // A rank that waited for one that had stopped at the deadline may have stalled first (a
    // shorter stall_s): the deadline is the cause then.
    int gave_up = (stalled_ ? 1 : 0) | (timed_out_ ? 2 : 0), any = 0;
    tool_allreduce(&gave_up, &any, 1, MPI_INT, MPI_BOR, comm_);
    if (any) {
      r->timed_out = (any & 2) != 0;
      r->stalled = !r->timed_out;
      return;  // ok stays false
    }
    if (!cuts_.empty()) resolve_cuts();
    std::vector<long long> mine(static_cast<size_t>(S_), LLONG_MIN), top(static_cast<size_t>(S_));
    if (finalize_ != kNoEvent)
      for (int s = 0; s < S_; ++s) mine[static_cast<size_t>(s)] = begin_kept(finalize_)[s];
    tool_allreduce(mine.data(), top.data(), S_, MPI_LONG_LONG, MPI_MAX, comm_);
    std::vector<int> who(static_cast<size_t>(S_)), first(static_cast<size_t>(S_));
    for (int s = 0; s < S_; ++s)
      who[static_cast<size_t>(s)] = finalize_ != kNoEvent && mine[static_cast<size_t>(s)] == top[static_cast<size_t>(s)] ? me_ : INT_MAX;
    tool_allreduce(who.data(), first.data(), S_, MPI_INT, MPI_MIN, comm_);
    r->end.assign(top.begin(), top.end());
    r->end_rank.assign(first.begin(), first.end());
    r->ok = top[0] != LLONG_MIN;
    if (keep_) {
      r->run.scenarios = S_;
      r->run.begin.swap(bn_);
      r->run.stride = kBeginStride;
      r->run.flat_of.swap(flat_of_);
      r->run.lane_events.swap(lane_events_);
      r->run.tl = &tl_;
      r->run.job_begin = in_.job_begin;
      r->run.startup = in_.startup;
      r->run.row_end.swap(en_);
      r->run.row_poll.swap(row_poll_);
      r->run.mpi_time.swap(d_);
      r->run.factors = &in_.factors;
      r->run.edge_begin.swap(dep_);
      r->run.edge_at.swap(edge_at_);
      r->run.edge_verts.swap(edge_verts_);
      r->run.row.swap(row_);
      r->run.rank = me_;
      r->run.init = init_;
      r->run.finalize = finalize_;
    }
  }
};

}  // namespace

uint64_t RetimedRun::pack_edges(const uint64_t* w, int S, std::vector<uint64_t>* verts) {
  const uint64_t at = verts->size();
  const uint64_t v0 = w[0];
  int s = 1;
  while (s < S && w[s] == v0) ++s;
  // One vertex: in the word itself (a world rank below 2^30 leaves the kind's two bits free).
  if (s == S && v0 <= kEdgeOffset) return uint64_t{1} << kEdgeKindShift | v0;
  const size_t words = (static_cast<size_t>(S) + 63) / 64;
  bool two = s < S && static_cast<size_t>(S) > 2 + words;  // else S vertices take no more room
  const uint64_t v1 = s < S ? w[s] : v0;
  for (int k = s + 1; k < S && two; ++k) two = w[k] == v0 || w[k] == v1;
  if (!two) {
    verts->insert(verts->end(), w, w + S);
    return uint64_t{3} << kEdgeKindShift | at;
  }
  verts->push_back(v0);
  verts->push_back(v1);
  verts->resize(verts->size() + words, 0);
  uint64_t* mask = verts->data() + at + 2;
  for (int k = s; k < S; ++k)
    if (w[k] == v1) mask[k / 64] |= uint64_t{1} << (k % 64);
  return uint64_t{2} << kEdgeKindShift | at;
}

int64_t RetimedRun::begin_from_window(uint32_t i, int s) const {
  i = flat(i);
  const uint32_t base = i & ~(stride - 1);
  if (base != win_[0].base || s != win_[0].s) {
    std::swap(win_[0], win_[1]);  // the walk steps back and forth across a window's edge
    if (base != win_[0].base || s != win_[0].s) win_[0].reset(base, s);
  }
  const uint32_t off = i - base;
  if (off >= win_[0].filled) fill_window(win_[0], off);
  return win_[0].b[off];
}

void RetimedRun::fill_window(Window& w, uint32_t off) const {
  const size_t S = static_cast<size_t>(scenarios);
  const uint32_t base = w.base;
  const int s = w.s;
  if (w.b.size() < stride) w.b.resize(stride);
  for (uint32_t k = base + w.filled; k <= base + off; ++k) {
    const uint32_t ev = lane_events.empty() ? k : lane_events[k];
    const uint32_t p = tl->prev[ev];
    int64_t b;
    if (k == base) {
      b = begin[static_cast<size_t>(base / stride) * S + static_cast<size_t>(s)];
    } else if (p == kNoEvent) {
      b = retimed_first_begin(*tl, ev, job_begin, startup_factor(startup, s));
    } else {
      // p is the chain's event before ev (flat k - 1), whose begin is in the window already: a
      // lane's first event, the only one whose p is elsewhere, is at a multiple of the stride.
      const int64_t end = end_given_begin(p, s, w.b[k - 1 - base]);
      const double* cf = factors ? factors->compute_row(ev, scenarios) : nullptr;
      b = retimed_next_begin(*tl, ev, end, cf ? cf[s] : 1.0);
    }
    w.b[k - base] = b;
  }
  w.filled = off + 1;
}

ForwardResult run_forward_pass(const ForwardInput& in, int scenarios, MPI_Comm comm) {
  if (scenarios <= 0 || !in.tl || !in.ops || !in.partners) return ForwardResult();
  // A factor table that does not fit the timeline is refused by every rank together (the pass
  // is collective): no rank reads past it, none waits for a rank that left.
  const ForwardFactors& f = in.factors;
  int ok = 1, all = 0;
  if (!f.of_event.empty()) {
    const size_t rows = std::min(f.compute.size(), f.mpi.size()) / static_cast<size_t>(scenarios);
    ok = f.of_event.size() == in.tl->ev.size() &&
         std::none_of(f.of_event.begin(), f.of_event.end(), [&](uint32_t c) { return c >= rows; });
  }
  tool_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) return ForwardResult();
  Pass p(in, scenarios, comm);
  return p.run();
}

}  // namespace cpath
