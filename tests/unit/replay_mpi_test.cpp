// The replay's MPI parts on 4 ranks (run under mpirun), each rank with a hand-built trace:
//  - point-to-point replay: send modes against the eager limit within and between hosts
//    (who gets a late-receiver partner), the rendezvous receive's second candidate, unmatched
//    sends and receives counted;
//  - collective replay: instances paired by sequence number across a gap on one rank,
//    instances some members did not record counted, the root's entry for a broadcast,
//    neighbourhood collectives with a distributed-graph topology;
//  - the distributed walk over those timelines goes to the late rank;
//  - the forward pass (what-if re-timing) bounds its sends in flight to a receiver that makes no
//    MPI progress for a while, and takes the candidate and the rule-5 wait start the
//    PAG's end edge takes when two candidates of different ops began at the same time, and its
//    kept end edge (the new critical path) counts a polling loop's work from the last poll
//    before the partner, as its new times do; it keeps a held eager send's candidates only
//    where one bound in the measured run;
//  - records exchanged in rounds arrive whole, by source and in order, whatever the rounds;
//  - the pointer-jumping walk equals the sequential walk, segment by segment and in order, on
//    random graphs with many hand-offs and with edges into chains that are not on the path.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "collective_replay.h"
#include "critical_path_walk.h"
#include "forward_pass.h"
#include "p2p_channels.h"
#include "p2p_replay.h"
#include "pag.h"
#include "replay_fixture.h"
#include "retimed_walk.h"
#include "sparse_exchange.h"
#include "walk_graph.h"

using namespace cpath_test;

namespace {

int g_rank = 0, g_size = 1;

// Hosts: ranks 0 and 1 on "a", 2 on "b", 3 on "a".
const char* host_of(int r) { return r == 2 ? "b" : "a"; }

// The point-to-point replay of this rank's model, collective over MPI_COMM_WORLD.
PartnerTable replay_p2p(const Model& m, ReplayStats* st) {
  const NumberedOps n = number_channels(m.tl, m.ops);
  PartnerTable p(m.ops.ops.size());
  replay_point_to_point(m.tl, m.ops, n, MPI_COMM_WORLD, &p, st);
  return p;
}

// This rank's trace on host "a" with Open MPI's inline limit of 256 bytes (a 1000-byte
// standard send is in the held range), after MPI_Init.
TraceBuilder held_range_trace() {
  TraceBuilder b(g_rank, 4, "a");
  b.t.meta.emplace_back("eager_inline_intra", "256");
  b.init(0, 10000);
  return b;
}

// The forward pass's input for this rank's model: `scenarios` start-up factors of 1, the job
// beginning at 0, every factor 1 unless the test sets `factors`.
ForwardInput forward_input(const Model& m, const PartnerTable& p, int scenarios, bool keep_run) {
  ForwardInput in;
  in.tl = &m.tl;
  in.ops = &m.ops;
  in.partners = &p;
  in.job_begin = 0;
  in.startup.assign(static_cast<size_t>(scenarios), 1.0);
  in.keep_run = keep_run;
  return in;
}

// Two scenarios over one factor class holding every event: as measured, and every compute
// interval scaled by `compute` (MPI times unchanged).
void scale_all_compute(const Model& m, double compute, ForwardInput* in) {
  in->factors.of_event.assign(m.tl.ev.size(), 0);
  in->factors.compute = {1.0, compute};
  in->factors.mpi = {1.0, 1.0};
}

}  // namespace

// The exchanges' test records: each names its source, destination and position in its run.
// Every rank sends every rank a different number of them (rank 1 none at all, and each rank
// none to itself).
namespace {
struct ExchangeRec {
  int32_t src, dst;
  uint64_t i;
};
long long exchange_count(int src, int dst) {
  return src == 1 || src == dst ? 0ll : static_cast<long long>(((src * 7 + dst * 3) % 11) * 300 + 1);
}
const size_t kExchangeRounds[] = {1, 3, 1000, kExchangeRoundBytes / sizeof(ExchangeRec)};
std::vector<long long> exchange_counts_from_me() {
  std::vector<long long> count(static_cast<size_t>(g_size));
  for (int p = 0; p < g_size; ++p) count[static_cast<size_t>(p)] = exchange_count(g_rank, p);
  return count;
}
}  // namespace

// Rounds of 1, 3, 1000 records and the default must all deliver the same array, laid out by
// source (what each source's takes add up to), each source's run in its order, each record
// once and handed over with its position, and no round may pack more than its share (one
// record more per destination, from the rounding of the slices): the point-to-point replay
// merges each run as it comes, holding no more than a round.
TEST(ReplayMpi, RecordsExchangedInRoundsArriveWholeAndInOrder) {
  using Rec = ExchangeRec;
  for (size_t round_records : kExchangeRounds) {
    std::vector<std::vector<Rec>> by_src(static_cast<size_t>(g_size));
    size_t largest = 0, most_taken = 0;
    bool positions = true;
    auto make = [&](int p, size_t i, Rec* r) { *r = Rec{g_rank, p, i}; };
    auto take = [&](int src, size_t lo, const Rec* recs, size_t n) {
      std::vector<Rec>& run = by_src[static_cast<size_t>(src)];
      positions = positions && lo == run.size();
      most_taken = std::max(most_taken, n);
      run.insert(run.end(), recs, recs + n);
    };
    cpath::exchange_records_streamed<Rec>(exchange_counts_from_me(), make, take, MPI_COMM_WORLD,
                                          round_records * sizeof(Rec), &largest);
    std::vector<Rec> in;
    std::vector<size_t> from{0};
    for (const auto& run : by_src) {
      in.insert(in.end(), run.begin(), run.end());
      from.push_back(in.size());
    }
    EXPECT_TRUE(positions) << "round of " << round_records;
    EXPECT_LE(largest, round_records + static_cast<size_t>(g_size)) << "round of " << round_records;
    ASSERT_EQ(from.size(), static_cast<size_t>(g_size) + 1);
    size_t at = 0;
    for (int src = 0; src < g_size; ++src) {
      ASSERT_EQ(from[static_cast<size_t>(src)], at) << "round of " << round_records;
      EXPECT_EQ(by_src[static_cast<size_t>(src)].size(), static_cast<size_t>(exchange_count(src, g_rank)));
      for (long long i = 0; i < exchange_count(src, g_rank); ++i, ++at) {
        ASSERT_LT(at, in.size());
        EXPECT_EQ(in[at].src, src);
        EXPECT_EQ(in[at].dst, g_rank);
        EXPECT_EQ(in[at].i, static_cast<uint64_t>(i)) << "round of " << round_records;
      }
    }
    EXPECT_EQ(at, in.size());
    EXPECT_EQ(from.back(), in.size());
    // Rounds of one record: as many rounds as the most any rank sends, so a slice of any run is
    // one record at most (every rank gets some from two sources or more).
    if (round_records == 1) {
      EXPECT_EQ(most_taken, size_t{1});
    }
  }
}

TEST(ReplayMpi, PointToPointSendModes) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b(g_rank, 4, host_of(g_rank));
  b.init(0, 10);
  // Rank 0 -> 1 (same host): a synchronous 8 B send, an eager 8 B send, a blocking 8 KiB send
  // (rendezvous), a non-blocking 8 KiB send with its Wait 50 us later, an 8 KiB buffered send
  // and its next call 50 us later, a non-blocking 8 KiB send waited for at once.
  // Rank 2 -> 3 (other host): 8 KiB, eager between hosts. Rank 2 also sends a message nobody
  // receives; rank 3 posts a receive nobody sends to.
  if (g_rank == 0) {
    b.p2p(kCall_MPI_Ssend, 100, 110, 1, 1, 8);
    b.p2p(kCall_MPI_Send, 120, 121, 1, 2, 8);
    b.p2p(kCall_MPI_Send, 130, 140, 1, 3, 8192);
    b.p2p(kCall_MPI_Isend, 150, 151, 1, 4, 8192, 0xA0);
    b.complete(kCall_MPI_Wait, 50300, 50310, {TraceBuilder::done(0xA0)});
    b.p2p(kCall_MPI_Bsend, 50320, 50321, 1, 5, 8192);
    b.p2p(kCall_MPI_Isend, 100400, 100401, 1, 6, 8192, 0xA1);
    b.complete(kCall_MPI_Wait, 100402, 100500, {TraceBuilder::done(0xA1)});
  } else if (g_rank == 1) {
    for (int tag = 1; tag <= 6; ++tag) b.p2p(kCall_MPI_Recv, 200 + 20 * tag, 400 + 20 * tag, 0, tag, 0);
  } else if (g_rank == 2) {
    b.p2p(kCall_MPI_Send, 100, 110, 3, 1, 8192);
    b.p2p(kCall_MPI_Send, 120, 121, 3, 99, 8);
  } else {
    b.p2p(kCall_MPI_Recv, 150, 160, 2, 1, 0);
    b.p2p(kCall_MPI_Irecv, 170, 171, 2, 98, 0, 0xB0);
    b.call(kCall_MPI_Request_free, 172, 173).req = 0xB0;
  }
  b.finalize(200000);
  Model m(std::move(b));
  ReplayStats st;
  const PartnerTable p = replay_p2p(m, &st);
  auto partner_of = [&](unsigned call, int k) { return p.of_op[m.op_posted_by(m.ev(call, k))]; };
  if (g_rank == 0) {
    const Partner ss = partner_of(kCall_MPI_Ssend, 0), eager = partner_of(kCall_MPI_Send, 0),
                  rndv = partner_of(kCall_MPI_Send, 1), isend = partner_of(kCall_MPI_Isend, 0),
                  bsend = partner_of(kCall_MPI_Bsend, 0);
    EXPECT_EQ(ss.rank, 1) << "synchronous send: waits for the receive";
    EXPECT_EQ(ss.begin, 220);
    EXPECT_FALSE(eager.valid()) << "eager send: no late-receiver edge";
    EXPECT_EQ(rndv.rank, 1) << "8 KiB within a host is above the 4 KiB eager limit";
    EXPECT_EQ(rndv.begin, 260);
    EXPECT_EQ(isend.rank, 1);
    EXPECT_FALSE(bsend.valid()) << "buffered send: never waits for the receiver";
    EXPECT_EQ(st.sends_unmatched, 0u);
  } else if (g_rank == 1) {
    for (int k = 0; k < 6; ++k) {
      const Partner q = partner_of(kCall_MPI_Recv, k);
      EXPECT_EQ(q.rank, 0) << k;
    }
    EXPECT_EQ(partner_of(kCall_MPI_Recv, 0).begin, 100);
    // The receive of the non-blocking rendezvous send also waits for rank 0's Wait (event 5).
    const uint32_t r4 = m.op_posted_by(m.ev(kCall_MPI_Recv, 3));
    int extras = 0;
    p.for_each(r4, [&](const Partner& q) {
      if (q.begin == 50300) ++extras;
    });
    EXPECT_EQ(extras, 1);
    // The 8 KiB buffered message leaves the attached buffer in rank 0's next call, the
    // MPI_Isend at 100400: its receive may wait for that too.
    int next_call = 0;
    p.for_each(m.op_posted_by(m.ev(kCall_MPI_Recv, 4)), [&](const Partner& q) {
      if (q.begin == 100400) ++next_call;
    });
    EXPECT_EQ(next_call, 1);
    // The last Isend's Wait came 1 ns after it: rank 0 stayed in MPI, no second candidate.
    EXPECT_EQ(p.extra.size(), 2u) << "only those two receives have a second candidate";
    EXPECT_EQ(st.recvs_unmatched, 0u);
  } else if (g_rank == 2) {
    EXPECT_FALSE(partner_of(kCall_MPI_Send, 0).valid()) << "8 KiB between hosts is below the 64 KiB limit";
    EXPECT_EQ(st.sends_unmatched, 1u);
  } else {
    EXPECT_EQ(partner_of(kCall_MPI_Recv, 0).rank, 2);
    EXPECT_EQ(st.recvs_unmatched, 1u);
  }
}

// Held eager sends (rule 3), with the trace saying what Open MPI's ob1 does: eager up to 4 KiB,
// inline up to 256 bytes within a host. Rank 0 -> 1 (same host): a 1000-byte MPI_Send to a
// MPI_Recv posted at 300 (held: the receive's posting call is its candidate); a 1000-byte
// MPI_Rsend to an MPI_Irecv posted at 150 and waited for at 50300 after 50 us of computation
// (held: the Wait is a second candidate); a 200-byte MPI_Send (inline: none). Rank 2 -> 3
// (other host): 1000 bytes, not held between hosts.
TEST(ReplayMpi, HeldEagerSends) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b(g_rank, 4, host_of(g_rank));
  b.t.meta.emplace_back("eager_inline_intra", "256");
  b.t.meta.emplace_back("eager_inline_inter", "65536");
  b.init(0, 10);
  if (g_rank == 0) {
    b.p2p(kCall_MPI_Send, 100, 400, 1, 1, 1000);
    b.p2p(kCall_MPI_Rsend, 50200, 50400, 1, 2, 1000);
    b.p2p(kCall_MPI_Send, 50500, 50501, 1, 3, 200);
  } else if (g_rank == 1) {
    b.p2p(kCall_MPI_Irecv, 150, 151, 0, 2, 0, 0xC0);
    b.p2p(kCall_MPI_Recv, 300, 310, 0, 1, 0);
    b.complete(kCall_MPI_Wait, 50300, 50310, {TraceBuilder::done(0xC0)});
    b.p2p(kCall_MPI_Recv, 50600, 50610, 0, 3, 0);
  } else if (g_rank == 2) {
    b.p2p(kCall_MPI_Send, 100, 400, 3, 1, 1000);
  } else {
    b.p2p(kCall_MPI_Recv, 300, 310, 2, 1, 0);
  }
  b.finalize(200000);
  Model m(std::move(b));
  ReplayStats st;
  const PartnerTable p = replay_p2p(m, &st);
  auto op_of = [&](unsigned call, int k) { return m.op_posted_by(m.ev(call, k)); };
  auto begins = [&](uint32_t op) {
    std::vector<int64_t> out;
    p.for_each(op, [&](const Partner& q) { out.push_back(q.begin); });
    std::sort(out.begin(), out.end());
    return out;
  };
  if (g_rank == 0) {
    EXPECT_EQ(begins(op_of(kCall_MPI_Send, 0)), std::vector<int64_t>{300}) << "held: the receive's posting call";
    EXPECT_EQ(begins(op_of(kCall_MPI_Rsend, 0)), (std::vector<int64_t>{150, 50300}))
        << "a ready send is held as a standard one: the Irecv and the receiver's Wait";
    EXPECT_TRUE(begins(op_of(kCall_MPI_Send, 1)).empty()) << "200 bytes: inline";
  } else if (g_rank == 1) {
    // The data left eagerly: each receive depends on the posting call alone.
    EXPECT_EQ(begins(op_of(kCall_MPI_Recv, 0)), std::vector<int64_t>{100});
    EXPECT_EQ(begins(op_of(kCall_MPI_Irecv, 0)), std::vector<int64_t>{50200});
    // A held blocking send still never needed its receive: a local send (Misarrangement).
    EXPECT_TRUE(p.matched_send[op_of(kCall_MPI_Recv, 0)].local);
  } else if (g_rank == 2) {
    EXPECT_TRUE(begins(op_of(kCall_MPI_Send, 0)).empty()) << "between hosts: not held";
  }
}

// A held send is released by the receiver's progress, and a probe that found it is such
// progress: each such probe is a candidate of the send (not its partner), unless the receiver
// came to it from another MPI call without computing (a polling loop). Rank 0 sends 1000 bytes
// (held range) and 200 bytes (inline) to rank 1, which probes and never receives either.
TEST(ReplayMpi, HeldSendsWaitForTheProbesThatFoundThem) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b = held_range_trace();
  if (g_rank == 0) {
    b.p2p(kCall_MPI_Send, 100000, 400000, 1, 5, 1000);
    b.p2p(kCall_MPI_Send, 500000, 600000, 1, 6, 200);
  } else if (g_rank == 1) {
    b.p2p(kCall_MPI_Probe, 300000, 301000, 0, 5);          // after 290 us of computation
    b.p2p(kCall_MPI_Probe, 350000, 351000, 0, 5);          // after 49 us
    b.p2p(kCall_MPI_Iprobe, 351500, 352000, 0, 5).flag = 1;  // 0.5 us: polling
    b.p2p(kCall_MPI_Probe, 550000, 551000, 0, 6);
  }
  b.finalize(1000000);
  Model m(std::move(b));
  ReplayStats st;
  const PartnerTable p = replay_p2p(m, &st);
  if (g_rank != 0) return;
  const uint32_t held = m.op_posted_by(m.ev(kCall_MPI_Send, 0)), small = m.op_posted_by(m.ev(kCall_MPI_Send, 1));
  std::vector<int64_t> begins;
  p.for_each(held, [&](const Partner& q) { begins.push_back(q.begin); });
  std::sort(begins.begin(), begins.end());
  EXPECT_EQ(begins, (std::vector<int64_t>{300000, 350000})) << "both probes after computing, not the polling one";
  EXPECT_FALSE(p.of_op[held].valid()) << "a probe is a candidate, not the matched receive";
  EXPECT_TRUE(p.held_at(held));
  EXPECT_FALSE(p.held_at(small));
  bool any = false;
  p.for_each(small, [&](const Partner&) { any = true; });
  EXPECT_FALSE(any) << "an inline send waits for nobody";
  EXPECT_EQ(st.sends_unmatched, 2u) << "probed, never received";
}

// The re-timing keeps a held eager send's candidates only where one bound in the measured run
// (docs/what-if.md). Rank 0 sends 1000 bytes twice to rank 1 (above the inline limit of 256:
// held sends). The first found its receive posted long before (the MPI let it go at once);
// the second waited 90 us for rank 1's Recv. Scenario 1 makes rank 0's computation 10 times
// faster: the first send must not now wait for the Irecv, the second still waits for the Recv.
TEST(ReplayMpi, ForwardPassKeepsOnlyTheHeldCandidatesThatBound) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b = held_range_trace();
  if (g_rank == 0) {
    b.p2p(kCall_MPI_Send, 500000, 510000, 1, 1, 1000);
    b.p2p(kCall_MPI_Send, 600000, 700000, 1, 2, 1000);
  } else if (g_rank == 1) {
    b.p2p(kCall_MPI_Irecv, 300000, 301000, 0, 1, 0, 0xA0);
    b.p2p(kCall_MPI_Recv, 690000, 700000, 0, 2, 0);
    b.complete(kCall_MPI_Wait, 800000, 810000, {TraceBuilder::done(0xA0, 0, 1)});
  }
  b.finalize(1000000);
  Model m(std::move(b));
  ReplayStats st;
  const PartnerTable p = replay_p2p(m, &st);
  ForwardInput in = forward_input(m, p, 2, true);
  in.factors.of_event.assign(m.tl.ev.size(), g_rank == 0 ? 1 : 0);
  in.factors.compute = {1.0, 1.0, 1.0, 0.1};  // [class * S + s]: class 1 (rank 0) 10x faster in s = 1
  in.factors.mpi = {1.0, 1.0, 1.0, 1.0};
  const ForwardResult r = run_forward_pass(in, 2, MPI_COMM_WORLD);
  ASSERT_TRUE(r.ok);
  if (g_rank != 0) return;
  const uint32_t s1 = m.ev(kCall_MPI_Send, 0), s2 = m.ev(kCall_MPI_Send, 1);
  EXPECT_TRUE(p.held_at(m.op_posted_by(s1)) && p.held_at(m.op_posted_by(s2))) << "the replay marks both held";
  EXPECT_EQ(r.run.end_of(s1, 0), 510000) << "all factors 1: as measured";
  EXPECT_EQ(r.run.end_of(s2, 0), 700000);
  // 10000 + 490000 / 10 + its own 10 us; waiting for the Irecv (300 us) would give 310000.
  EXPECT_EQ(r.run.end_of(s1, 1), 69000) << "a send the MPI let go does not wait for its receiver";
  // Its receive still begins at 690 us: 690000 + the send's own 10 us.
  EXPECT_EQ(r.run.end_of(s2, 1), 700000) << "a held send that bound still waits for its receive";
}

// scale_ns rounds as std::llround (half away from zero), which cpath-ref uses: the re-timed
// times of the two implementations must agree to the nanosecond. Halves, negatives, factors
// 0 and 1, and random durations up to 2^50 ns with random factors.
TEST(ReplayMpi, ScaledDurationsRoundAsLlround) {
  std::mt19937_64 g(15);
  const double fs[] = {0.5, 0.1, 1.0 / 3, 2.0, 0.25, 0.0, 10.0, 0.999999, 1.5, 1.0};
  for (int k = 0; k < 200000; ++k) {
    const int64_t d = static_cast<int64_t>(g() % (1ull << (g() % 51))) - (k % 7 == 0 ? static_cast<int64_t>(g() % 1000) : 0);
    const double f = k % 3 ? fs[k % 10] : std::ldexp(static_cast<double>(g() % 1000000), -20);
    const int64_t want = f == 1.0 ? d : static_cast<int64_t>(std::llround(static_cast<double>(d) * f));
    ASSERT_EQ(scale_ns(d, f), want) << d << " x " << f;
  }
  for (int64_t d = -5; d <= 5; ++d)
    for (double f : {0.5, 1.5, 2.5}) EXPECT_EQ(scale_ns(d, f), std::llround(static_cast<double>(d) * f)) << d << " x " << f;
}

// Scenario 0 as measured, scenario 1 with every compute gap halved: the pass's kept run, with
// the input whose factors its readers use (so it lives as long).
struct HalfCompute {
  PartnerTable partners;
  ForwardInput in;
  ForwardResult r;
};
static std::unique_ptr<HalfCompute> retime_with_half_compute(Model& m) {
  auto h = std::make_unique<HalfCompute>();
  ReplayStats st;
  h->partners = replay_p2p(m, &st);
  h->in = forward_input(m, h->partners, 2, true);
  scale_all_compute(m, 0.5, &h->in);
  h->r = run_forward_pass(h->in, 2, MPI_COMM_WORLD);
  return h;
}

// Reads every begin and end of r forwards, backwards, in a scattered order and alternating
// scenarios: each must be the expected one, whatever the window held before.
static void expect_retimed_reads(const ForwardResult& r, const std::vector<int64_t> (&want_b)[2],
                                 const std::vector<int64_t> (&want_e)[2]) {
  const uint32_t n = static_cast<uint32_t>(want_b[0].size());
  std::vector<uint32_t> order;
  for (uint32_t i = n; i-- > 0;) order.push_back(i);
  for (uint32_t i = 0; i < n; ++i) order.push_back(i);
  for (uint32_t i = 0; i < n; ++i) order.push_back((i * 37 + 11) % n);
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const int s = static_cast<int>((k / 3) % 2);
    ASSERT_EQ(r.run.begin_of(i, s), want_b[s][i]) << "event " << i << " scenario " << s << " read " << k;
    ASSERT_EQ(r.run.end_of(i, s), want_e[s][i]) << "event " << i << " scenario " << s << " read " << k;
  }
}

// A re-timed run keeps every 16th event's new begin and recomputes the rest when read
// (RetimedRun::begin_of), filling a window only as far as read and keeping the previous one.
// Each rank: 200 local calls (nothing to wait for) whose new times follow by hand: in scenario
// 1 every compute gap is halved. Read forwards, backwards, in a scattered order and
// alternating scenarios, every begin and end must be the hand-computed one.
TEST(ReplayMpi, RetimedBeginsReadInAnyOrderAreTheComputedOnes) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b(g_rank, 4);
  b.init(0, 100);
  constexpr uint32_t kCalls = 200;
  for (uint32_t k = 0; k < kCalls; ++k) {
    const int64_t begin = 1000 * (k + 1) + 2 * ((k * 7) % 13);
    b.call(kCall_MPI_Pcontrol, begin, begin + 100 + 2 * (k % 5)).aux = 1;
  }
  b.finalize(1000 * (kCalls + 2));
  Model m(std::move(b));
  const auto h = retime_with_half_compute(m);
  const ForwardResult& r = h->r;
  ASSERT_TRUE(r.ok);
  ASSERT_GT(r.run.stride, 1u) << "one thread: the begins are kept with a stride";
  const uint32_t n = static_cast<uint32_t>(m.tl.ev.size());
  std::vector<int64_t> want_b[2], want_e[2];
  for (int s = 0; s < 2; ++s) {
    int64_t end = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const TimelineEvent& e = m.tl.ev[i];
      const int64_t gap = i == 0 ? e.begin : e.begin - m.tl.ev[i - 1].end;
      const int64_t begin = end + (s == 0 ? gap : gap / 2);
      end = begin + (e.end - e.begin);
      want_b[s].push_back(begin);
      want_e[s].push_back(end);
    }
  }
  expect_retimed_reads(r, want_b, want_e);
}

// The same with two recording threads whose calls interleave in the timeline: each thread's
// events are a lane of their own (RetimedRun::flat_of), every 16th of a lane keeps its begins,
// and the second thread's first call follows the first thread's latest ended call (rule 1),
// whose begin its lane has left behind. Before lanes, such a run kept every event's begins.
TEST(ReplayMpi, RetimedBeginsOfOverlappingThreadsAreTheComputedOnes) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b(g_rank, 4);
  b.init(0, 100);
  constexpr uint32_t kCalls = 150;
  for (uint32_t k = 0; k < kCalls; ++k) {
    const int64_t b0 = 1000 * (k + 1) + 2 * ((k * 7) % 13), b1 = b0 + 400 + 6 * (k % 3);
    b.call(kCall_MPI_Pcontrol, b0, b0 + 100 + 2 * (k % 5), 0).aux = 1;
    b.call(kCall_MPI_Pcontrol, b1, b1 + 300 + 4 * (k % 7), 1).aux = 1;
  }
  b.finalize(1000 * (kCalls + 2));
  Model m(std::move(b));
  const auto h = retime_with_half_compute(m);
  const ForwardResult& r = h->r;
  ASSERT_TRUE(r.ok);
  ASSERT_GT(r.run.stride, 1u);
  ASSERT_FALSE(r.run.flat_of.empty()) << "the threads overlap: one lane each";
  const uint32_t n = static_cast<uint32_t>(m.tl.ev.size());
  std::vector<int64_t> want_b[2], want_e[2];
  for (int s = 0; s < 2; ++s) {
    want_b[s].assign(n, 0);
    want_e[s].assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const TimelineEvent& e = m.tl.ev[i];
      const uint32_t q = m.tl.prev[i];
      const int64_t gap = q == kNoEvent ? e.begin : e.begin - m.tl.ev[q].end;
      const int64_t end_q = q == kNoEvent ? 0 : want_e[s][q];
      want_b[s][i] = end_q + (s == 0 ? gap : gap / 2);
      want_e[s][i] = want_b[s][i] + (e.end - e.begin);
    }
  }
  expect_retimed_reads(r, want_b, want_e);
}

// World: every rank records MPI_Init, a Barrier (seq 0), two Allreduce (1, 2) and a late
// Allreduce (3) where rank 2 arrives last, then a Bcast from root 1 (4). Rank 0 paused around
// seq 1 and 2: it has a gap of 2 instead. A distributed-graph communicator (rank r receives
// from r+1) has one Neighbor_allgather where rank 1 is late and rank 2 later still.
TEST(ReplayMpi, CollectivesPairBySequenceNumber) {
  ASSERT_EQ(g_size, 4);
  TraceBuilder b(g_rank, 4);
  const int g = b.comm(0x3000, 4242, {0, 1, 2, 3}, 0, 1);
  CommTopology topo;
  topo.record = g;
  topo.kind = TopoKind::DistGraph;
  topo.sources = {(g_rank + 1) % 4};
  topo.destinations = {(g_rank + 3) % 4};
  b.t.topologies.push_back(topo);
  b.init(g_rank, 10);
  b.call(kCall_MPI_Barrier, 20, 30);
  if (g_rank == 0) {
    b.gap(0, 2, 40);
    b.call(kCall_MPI_Pcontrol, 40, 41).aux = 1;
  } else {
    b.call(kCall_MPI_Allreduce, 40, 50);
    b.call(kCall_MPI_Allreduce, 60, 70);
  }
  b.call(kCall_MPI_Allreduce, g_rank == 2 ? 500 : 100 + g_rank, 510);
  Event& bc = b.call(kCall_MPI_Bcast, g_rank == 1 ? 600 : 520, 610);
  bc.root = 1;
  Event& nb = b.call(kCall_MPI_Neighbor_allgather, g_rank == 1 ? 700 : g_rank == 2 ? 900 : 620, 950);
  nb.comm = 0x3000;
  b.finalize(g_rank == 0 ? 2000 : 1000);
  Model m(std::move(b));
  PartnerTable p(m.ops.ops.size());
  ReplayStats st;
  replay_collectives(m.tl, m.ops, MPI_COMM_WORLD, &p, &st);
  const uint32_t last_allreduce = m.ev(kCall_MPI_Allreduce, g_rank == 0 ? 0 : 2);
  const Partner a = p.of_op[m.op_posted_by(last_allreduce)];
  EXPECT_EQ(a.rank, 2) << "the late Allreduce pairs with rank 2's despite rank 0's pause";
  EXPECT_EQ(a.begin, 500);
  EXPECT_EQ(p.init.rank, 3) << "MPI_Init: the latest entry";
  const Partner bp = p.of_op[m.op_posted_by(m.ev(kCall_MPI_Bcast))];
  if (g_rank == 1) {
    EXPECT_FALSE(bp.valid()) << "the root waits for nobody";
  } else {
    EXPECT_EQ(bp.rank, 1);
    EXPECT_EQ(bp.begin, 600);
  }
  const Partner np = p.of_op[m.op_posted_by(m.ev(kCall_MPI_Neighbor_allgather))];
  EXPECT_EQ(np.rank, (g_rank + 1) % 4) << "the in-neighbour, not the latest member";
  EXPECT_EQ(st.collectives_incomplete, g_rank == 0 ? 0u : 2u) << "seq 1 and 2 lack rank 0";
  EXPECT_EQ(st.collective_count_mismatch, 0u);

  // The walk from the latest MPI_Finalize (rank 0) goes to rank 2's computation before its
  // late Allreduce (from 30 to 500).
  RankPag pag(m.tl, m.ops, p, g_rank);
  WalkResult w = walk_critical_path(pag, m.tl, MPI_COMM_WORLD);
  EXPECT_EQ(w.start_rank, 0);
  int64_t mine = 0;
  for (const Segment& s : w.segments) mine += s.end - s.begin;
  int64_t total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 2000) << "the path spans the run";
  bool late_compute = false;
  for (const Segment& s : w.segments)
    if (s.kind == SegmentKind::Compute && s.end == 500) late_compute = true;
  EXPECT_EQ(late_compute, g_rank == 2);
}

namespace {

// A random acyclic walk graph, the same on every rank for a seed: rank r's event i begins near
// 100 i; an end edge goes to the call's own begin or to an earlier event of another rank (so
// every step back in time is strict across ranks). Many cross-rank edges lead into chains the
// path never visits, which the jumping walk must leave unmarked.
class RandomGraph final : public cpath::WalkGraph {
 public:
  RandomGraph(int rank, int ranks, uint32_t n, uint32_t seed, uint32_t cross_percent)
      : r_(rank), p_(ranks), n_(n), seed_(seed), cross_(cross_percent) {}
  uint32_t events() const override { return n_; }
  int64_t begin(uint32_t i) const override { return begin_of(r_, i); }
  int64_t end(uint32_t i) const override { return begin(i) + 1 + static_cast<int64_t>(h(r_, i, 1) % 40); }
  uint32_t prev(uint32_t i) const override { return i == 0 ? cpath::kNoEvent : i - 1; }
  cpath::PagTarget end_edge(uint32_t j) const override {
    if (j == 0 || j + 1 == n_ || h(r_, j, 2) % 100 >= cross_) return cpath::PagTarget{r_, j, begin(j)};
    const int q = static_cast<int>((r_ + 1 + h(r_, j, 3) % static_cast<uint64_t>(p_ - 1)) % p_);
    const uint32_t back = 1 + static_cast<uint32_t>(h(r_, j, 4) % std::min<uint32_t>(j, 3));
    return cpath::PagTarget{q, j - back, begin_of(q, j - back)};
  }
  bool is_init(uint32_t i) const override { return i == 0; }
  uint32_t finalize_event() const override { return n_ - 1; }
  uint32_t init_event() const override { return 0; }

 private:
  uint64_t h(int r, uint32_t i, uint32_t salt) const {
    uint64_t x = (static_cast<uint64_t>(seed_) << 40) ^ (static_cast<uint64_t>(r) << 32) ^ i ^
                 (static_cast<uint64_t>(salt) << 56);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }
  int64_t begin_of(int r, uint32_t i) const { return 100 * static_cast<int64_t>(i) + static_cast<int64_t>(h(r, i, 0) % 50); }
  int r_, p_;
  uint32_t n_, seed_, cross_;
};

}  // namespace

// Two receives complete in one Waitall; their senders (threads 1 and 2 of the same rank, so
// the pass runs on MPI_COMM_SELF) began at the same time. Rule 2's tie goes to the lower
// event; that candidate's receive was polled from 20, so its wait starts there (rule 5). The
// other receive, first in op order, was never polled. Scenario 1 removes all computation.
// The timeline links each sender thread's first event to the rank's event before it (the
// Test ending at 45), so the senders now begin at 16 (after 13 re-timed Tests of 1 ns from
// 3). Following the edge, the Waitall waits from the re-timed first poll (3), so it ends its
// own MPI time after the partner came (55 ns) after the later of the two: 16 + 55 = 71.
// Timing it from its own begin (the unpolled op's rule) would give 18 + 50 = 68.
TEST(ReplayMpi, ForwardPassFollowsTheEndEdgeOnTies) {
  TraceBuilder b(0, 1);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 0, 5, 0, 0xA0);
  b.p2p(kCall_MPI_Irecv, 12, 13, 0, 6, 0, 0xB0);
  for (int t = 20; t < 50; t += 2) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xB0});
  b.complete(kCall_MPI_Waitall, 50, 100, {TraceBuilder::done(0xA0, 0, 5), TraceBuilder::done(0xB0, 0, 6)});
  b.finalize(100);
  b.p2p(kCall_MPI_Send, 45, 46, 0, 5, 8, 0, 1);
  b.p2p(kCall_MPI_Send, 45, 46, 0, 6, 8, 0, 2);
  const Model m(std::move(b));
  const uint32_t wall = m.ev(kCall_MPI_Waitall), s0 = m.ev(kCall_MPI_Send, 0), s1 = m.ev(kCall_MPI_Send, 1);
  const uint32_t ra = m.op_posted_by(m.ev(kCall_MPI_Irecv, 0)), rb = m.op_posted_by(m.ev(kCall_MPI_Irecv, 1));
  ASSERT_LT(ra, rb);
  PartnerTable p(m.ops.ops.size());
  p.of_op[ra] = Partner{0, std::max(s0, s1), 45};
  p.of_op[rb] = Partner{0, std::min(s0, s1), 45};

  uint32_t op = kNoEvent, poll = kNoEvent;
  int64_t from = -1;
  const PagTarget t = RankPag(m.tl, m.ops, p, 0).end_edge(wall, &op, &from, &poll);
  EXPECT_EQ(t.event, std::min(s0, s1));
  EXPECT_EQ(op, rb) << "ties: the lower event, not the first op";
  EXPECT_EQ(from, 20) << "rule 5: the first poll of the polled receive";
  EXPECT_EQ(poll, m.ev(kCall_MPI_Test, 0));

  ForwardInput in = forward_input(m, p, 2, false);
  scale_all_compute(m, 0.0, &in);
  const ForwardResult r = run_forward_pass(in, 2, MPI_COMM_SELF);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.end.size(), 2u);
  EXPECT_EQ(r.end[0], 100) << "all factors 1: the measured run";
  EXPECT_EQ(r.end[1], 71) << "the wait counts from the poll of the op the edge chose";
}

// A dependency cycle (what collective instances paired differently by the ranks could make):
// the pass must give up after stall_s and say so, not wait in MPI_Finalize for ever. The
// receive's partner is the send after it on the same thread, which begins only after the
// receive ends.
TEST(ReplayMpi, ForwardPassGivesUpOnACycle) {
  TraceBuilder b(0, 1);
  b.init(0, 1);
  b.p2p(kCall_MPI_Recv, 10, 50, 0, 5, 8);
  b.p2p(kCall_MPI_Send, 60, 61, 0, 5, 8);
  b.finalize(100);
  const Model m(std::move(b));
  const uint32_t recv = m.op_posted_by(m.ev(kCall_MPI_Recv)), send = m.ev(kCall_MPI_Send);
  PartnerTable p(m.ops.ops.size());
  p.of_op[recv] = Partner{0, send, 5};  // before the receive ended: a dependency the pass keeps
  ForwardInput in = forward_input(m, p, 1, false);
  in.stall_s = 0.3;
  const double t0 = MPI_Wtime();
  const ForwardResult r = run_forward_pass(in, 1, MPI_COMM_SELF);
  const double took = MPI_Wtime() - t0;
  EXPECT_TRUE(r.stalled);
  EXPECT_FALSE(r.ok);
  EXPECT_GE(took, 0.25);
  EXPECT_LT(took, 10.0);
}

// A polling loop whose partner came after the loop's last poll but before the completing
// call (rule 5). Thread 0: Irecv, Tests of the receive at 20, 40 and 60 (19 ns of work between
// them), Wait [70, 100]. The eager sender (thread 1) begins at s = 65; its thread leads to the
// Test ending at 61. Rule 5: p = the Test at 20, q = the Test at 60 (the last before 65); the
// work after q is 61..70 = 9 <= s - p.b = 45, so the wait starts at w = 20 and the sender wins.
// Re-timed with every factor 1, ready = p.b + work after q = 20 + 9 = 29 < 65: the new end edge
// is the sender's begin, as the PAG's, and the new path goes from the sender thread's compute
// [61, 65] to the Wait's: the waiting thread's own work [65, 70] (compute, rule 7), then MPI
// [70, 100]. Counting the work from p instead (19 + 19 + 9 = 47, ready 67 > 65) picks the own
// begin, MPI [70, 100] with the compute before it not passed through, while the new end (35 ns
// after 65) is the same: the new path would differ from the reference's with equal run times.
TEST(ReplayMpi, ForwardPassEdgeCountsPollingWorkFromTheLastPoll) {
  TraceBuilder b(0, 1);
  b.init(0, 1);
  b.p2p(kCall_MPI_Irecv, 10, 11, 0, 5, 0, 0xA0);
  for (int t = 20; t <= 60; t += 20) b.complete(kCall_MPI_Test, t, t + 1, {}, {0xA0});
  b.complete(kCall_MPI_Wait, 70, 100, {TraceBuilder::done(0xA0, 0, 5)});
  b.finalize(100);
  b.p2p(kCall_MPI_Send, 65, 66, 0, 5, 8, 0, 1);
  const Model m(std::move(b));
  const uint32_t wait = m.ev(kCall_MPI_Wait), send = m.ev(kCall_MPI_Send);
  const uint32_t first = m.ev(kCall_MPI_Test, 0), last = m.ev(kCall_MPI_Test, 2);
  const uint32_t recv = m.op_posted_by(m.ev(kCall_MPI_Irecv));
  ASSERT_NE(recv, kNoEvent);
  ASSERT_EQ(m.tl.prev[send], last) << "rule 1: the sender thread starts after the Test ending at 61";
  PartnerTable p(m.ops.ops.size());
  p.of_op[recv] = Partner{0, send, 65};

  uint32_t poll = kNoEvent, q = kNoEvent;
  int64_t from = -1;
  const PagTarget t = RankPag(m.tl, m.ops, p, 0).end_edge(wait, nullptr, &from, &poll, &q);
  ASSERT_EQ(t.event, send) << "the measured PAG: the partner came after the wait start";
  EXPECT_EQ(from, 20);
  EXPECT_EQ(poll, first);
  EXPECT_EQ(q, last);

  // The re-timed run reads the input's factors: the input must outlive the walk below.
  const ForwardInput in = forward_input(m, p, 1, true);
  const ForwardResult r = run_forward_pass(in, 1, MPI_COMM_SELF);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.end[0], 100) << "all factors 1: the measured run";
  EXPECT_EQ(r.run.end_of(wait, 0), 100);
  EXPECT_EQ(r.run.edge_of(wait, 0), pack_vertex(0, send)) << "ready 29 < the sender's 65: the sender binds the end";
  EXPECT_EQ(r.run.edge_begin_of(wait, 0), 65);

  const WalkResult w = walk_retimed(m.tl, r.run, 0, MPI_COMM_SELF);
  bool wait_seg = false, send_compute = false, loop_work = false;
  for (const Segment& g : w.segments) {
    if (g.kind == SegmentKind::Mpi && g.event == wait) {
      EXPECT_EQ(g.begin, 70) << "the Wait's own time; the sender's edge began at 65, before it";
      EXPECT_EQ(g.end, 100);
      EXPECT_FALSE(g.passed);
      wait_seg = true;
    }
    if (g.kind == SegmentKind::Compute && g.event == wait) {
      // Rule 7: from the sender's begin to the Wait the thread worked after its last Test.
      EXPECT_EQ(g.begin, 65);
      EXPECT_EQ(g.end, 70);
      EXPECT_EQ(g.prev, last);
      EXPECT_TRUE(g.passed);
      loop_work = true;
    }
    if (g.kind == SegmentKind::Compute && g.event == send) {
      EXPECT_EQ(g.begin, 61);
      EXPECT_EQ(g.end, 65);
      send_compute = true;
    }
  }
  EXPECT_TRUE(wait_seg);
  EXPECT_TRUE(loop_work) << "the path passes the loop's work between the sender's begin and the Wait";
  EXPECT_TRUE(send_compute) << "the new path goes through the sender's thread";
}

// The jumping walk `j` against the sequential walk `s` of the same graph: same path, segment by
// segment, on this rank.
void expect_same_walk(const WalkResult& j, const WalkResult& s, const std::string& what) {
  EXPECT_FALSE(j.truncated) << what;
  EXPECT_EQ(j.start_rank, s.start_rank) << what;
  EXPECT_EQ(j.handoffs, s.handoffs) << what;
  ASSERT_EQ(j.segments.size(), s.segments.size()) << what << " rank " << g_rank;
  for (size_t k = 0; k < s.segments.size(); ++k) {
    const Segment &a = j.segments[k], &b = s.segments[k];
    EXPECT_TRUE(a.begin == b.begin && a.end == b.end && a.event == b.event && a.kind == b.kind)
        << what << " rank " << g_rank << " segment " << k;
  }
}

TEST(ReplayMpi, JumpingWalkEqualsSequentialWalk) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const uint32_t n = seed % 3 == 0 ? 2000 : 5 + seed * 13;
    const uint32_t cross = seed % 4 == 0 ? 100 : 20 + seed * 5;
    const RandomGraph g(g_rank, g_size, n, seed, cross);
    const WalkResult s = walk_critical_path_sequential(g, MPI_COMM_WORLD);
    const WalkResult j = walk_critical_path_jumping(g, MPI_COMM_WORLD);
    EXPECT_FALSE(s.truncated);
    expect_same_walk(j, s, "seed " + std::to_string(seed));
    uint64_t mine = s.handoffs, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (seed % 4 == 0) {
      EXPECT_GT(all, n / 8) << "the graph must move the path between ranks often";
    }
    if (n >= 2000) {
      EXPECT_GT(j.rounds, 3u) << "more than a few rounds of jumping";
    }
  }
}

// The what-if walks every scenario's path in shared rounds: each walk must come out as it does
// alone, whatever the other walks' lengths (they finish in different rounds).
TEST(ReplayMpi, WalksInSharedRoundsEqualSequentialWalks) {
  std::vector<RandomGraph> graphs;
  for (uint32_t seed = 21; seed <= 26; ++seed)
    graphs.emplace_back(g_rank, g_size, seed % 2 ? 1500 : 40 + seed, seed, seed % 3 == 0 ? 100 : 30);
  std::vector<const WalkGraph*> p;
  for (const RandomGraph& g : graphs) p.push_back(&g);
  size_t next = 0;
  uint32_t rounds_max = 0;
  std::vector<uint32_t> rounds;
  walk_critical_paths_jumping(p, MPI_COMM_WORLD, [&](size_t k, WalkResult& j, bool) {
    ASSERT_EQ(k, next++) << "results in graph order";
    const WalkResult s = walk_critical_path_sequential(graphs[k], MPI_COMM_WORLD);
    expect_same_walk(j, s, "graph " + std::to_string(k));
    rounds.push_back(j.rounds);
    rounds_max = std::max(rounds_max, j.rounds);
  });
  EXPECT_EQ(next, graphs.size());
  if (g_size > 1) {
    EXPECT_LT(*std::min_element(rounds.begin(), rounds.end()), rounds_max) << "the walks end in different rounds";
  }
}

// The what-if takes each new path in pieces (so no whole path is held): the pieces, joined,
// must be the walk, even when a piece ends in the middle of a rank's stretch of the path.
TEST(ReplayMpi, WalkInPiecesJoinsToTheWalk) {
  std::vector<RandomGraph> graphs;
  for (uint32_t seed = 31; seed <= 33; ++seed) graphs.emplace_back(g_rank, g_size, 900, seed, seed == 32 ? 5 : 60);
  std::vector<const WalkGraph*> p;
  for (const RandomGraph& g : graphs) p.push_back(&g);
  std::vector<WalkResult> joined(graphs.size());
  size_t pieces = 0;
  walk_critical_paths_jumping(
      p, MPI_COMM_WORLD,
      [&](size_t k, WalkResult& w, bool last) {
        // A step adds two segments, and the pieces of a wait that began before its call (rule
        // 7), which end the piece when it stopped after that step.
        size_t tail = 0;
        while (tail < w.segments.size() && w.segments[w.segments.size() - 1 - tail].passed) ++tail;
        EXPECT_LE(w.segments.size() - tail, 7u + 2u) << "a piece holds about `chunk` segments";
        joined[k].segments.insert(joined[k].segments.end(), w.segments.begin(), w.segments.end());
        if (!last) {
          ++pieces;
          return;
        }
        std::vector<Segment> all;
        all.swap(joined[k].segments);
        joined[k] = w;
        joined[k].segments = std::move(all);
      },
      7);
  for (size_t k = 0; k < graphs.size(); ++k) {
    const WalkResult s = walk_critical_path_sequential(graphs[k], MPI_COMM_WORLD);
    expect_same_walk(joined[k], s, "graph " + std::to_string(k) + " in pieces");
  }
  EXPECT_GT(pieces, 0u) << "the paths are longer than a piece";
}

// A rank far ahead of a busy receiver: rank 0 sends rank 1 200 000 eager messages, which the
// pass forwards without waiting for anything, while rank 1 makes no MPI progress for 3 s (a
// signal handler sleeping on its main thread, as a long stretch of local work would). Open MPI
// 4.1.4 loses messages when a rank leaves that many sends queued inside MPI for one receiver
// (a standalone program: 130 000 hang, 120 000 complete), and the pass then hung in
// MPI_Finalize; it must bound its sends in flight and finish with the measured run's end.
extern "C" void sleep_three_seconds(int) {
  struct timespec ts = {3, 0};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

TEST(ReplayMpi, ForwardPassBoundsItsSendsToABusyReceiver) {
  ASSERT_EQ(g_size, 4);
  constexpr int kMessages = 200000;
  TraceBuilder b(g_rank, 4, "a");
  b.init(0, 10);
  for (int k = 0; k < kMessages; ++k) {
    const int64_t t = 100 + 10 * static_cast<int64_t>(k);
    if (g_rank == 0) b.p2p(kCall_MPI_Send, t, t + 1, 1, 7, 8);
    if (g_rank == 1) b.p2p(kCall_MPI_Recv, t, t + 2, 0, 7, 8);
  }
  const int64_t end = 100 + 10 * static_cast<int64_t>(kMessages) + 10;
  b.finalize(end);
  const Model m(std::move(b));
  ReplayStats st;
  const PartnerTable p = replay_p2p(m, &st);
  ASSERT_EQ(st.recvs_unmatched, 0u);
  ASSERT_EQ(st.sends_unmatched, 0u);
  ForwardInput in = forward_input(m, p, 1, false);
  // Without the bound, Open MPI recovered here only after about 40 s (the pass takes 1 s, and
  // hung on the MPICH program): 15 s is the budget.
  in.stall_s = 15;
  in.deadline = MPI_Wtime() + 15;
  struct sigaction sa = {};
  struct sigaction old = {};
  sa.sa_handler = sleep_three_seconds;
  if (g_rank == 1) sigaction(SIGUSR1, &sa, &old);
  MPI_Barrier(MPI_COMM_WORLD);
  std::thread stall;
  if (g_rank == 1)
    stall = std::thread([main = pthread_self()] {
      usleep(50000);  // after the pass's first collective, before rank 0 has sent much
      pthread_kill(main, SIGUSR1);
    });
  const ForwardResult r = run_forward_pass(in, 1, MPI_COMM_WORLD);
  if (stall.joinable()) stall.join();
  if (g_rank == 1) sigaction(SIGUSR1, &old, nullptr);
  EXPECT_FALSE(r.stalled);
  EXPECT_FALSE(r.timed_out);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.end.size(), 1u);
  EXPECT_EQ(r.end[0], end) << "every factor 1: the measured run";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("replay_mpi_test: %d ranks, %s\n", g_size, worst ? "FAILED" : "passed");
  MPI_Finalize();
  return worst;
}
