// The timeline (replay/timeline.h) on hand-built traces: rule 1's predecessor is per thread
// (a thread's first call follows the MPI_Init thread's latest finished call), the compute
// prefix sums rule 5 uses, gap records placed by time, and handles of freed communicators.
#include <gtest/gtest.h>

#include "path_profile.h"
#include "replay_fixture.h"
#include "site_names.h"

using namespace cpath_test;

TEST(ReplayTimeline, PrevFollowsTheCallsOwnThread) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 20, 30);
  b.p2p(kCall_MPI_Send, 100, 110, 1, 5);
  b.p2p(kCall_MPI_Recv, 40, 90, 1, 6, 0, 0, 1);   // thread 1
  b.p2p(kCall_MPI_Send, 95, 200, 1, 7, 8, 0, 1);  // thread 1, overlaps thread 0's Send
  Model m(std::move(b));
  const Timeline& tl = m.tl;
  ASSERT_EQ(tl.ev.size(), 5u);
  const uint32_t init = m.ev(kCall_MPI_Init), barrier = m.ev(kCall_MPI_Barrier), send0 = m.ev(kCall_MPI_Send, 1),
                 recv1 = m.ev(kCall_MPI_Recv), send1 = m.ev(kCall_MPI_Send, 0);
  ASSERT_EQ(tl.slot(send0), 0u);
  ASSERT_EQ(tl.slot(send1), 1u);
  EXPECT_EQ(tl.prev[init], kNoEvent);
  EXPECT_EQ(tl.prev[barrier], init);
  // Not thread 1's Recv, which ended (90) before thread 0's Send began (100): another thread.
  EXPECT_EQ(tl.prev[send0], barrier);
  // Thread 1's first call follows the MPI_Init thread's latest call that had ended (Barrier).
  EXPECT_EQ(tl.prev[recv1], barrier);
  EXPECT_EQ(tl.prev[send1], recv1);
  EXPECT_EQ(tl.threads, 2u);
  EXPECT_EQ(tl.init_slot, 0u);
  // Compute per thread: thread 0 computed 10 + 70 ns before its Send, thread 1 5 ns.
  EXPECT_EQ(tl.compute_between(init, send0), 80);
  EXPECT_EQ(tl.compute_between(recv1, send1), 5);
}

// The event keeps a site number and the low 32 bits of the size; both read back as recorded,
// sizes of 4 GiB and more (a large collective's count times its type) included.
TEST(ReplayTimeline, CallSitesAndSizesReadBackAsRecorded) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  const uint64_t sizes[] = {0, 8, 0xfffffffeull, 0xffffffffull, 5ull << 30, 1ull << 62};
  const uint64_t sites[] = {0x401000, 0x402000, 0x401000, 0x7f0000123456ull, 0, 0x402000};
  for (int k = 0; k < 6; ++k) {
    Event& e = b.p2p(kCall_MPI_Send, 20 + 10 * k, 25 + 10 * k, 1, k, sizes[k], 0, k % 2);
    e.callsite = sites[k];
  }
  Model m(std::move(b));
  const Timeline& tl = m.tl;
  for (int k = 0; k < 6; ++k) {
    const uint32_t i = m.ev(kCall_MPI_Send, k);
    EXPECT_EQ(tl.bytes(i), sizes[k]) << k;
    EXPECT_EQ(tl.callsite(i), sites[k]) << k;
  }
  EXPECT_EQ(tl.big_bytes.size(), 3u) << "only the sizes that do not fit 32 bits minus one";
  EXPECT_EQ(tl.sites.size(), 4u) << "none, and three distinct sites";
}

TEST(ReplayTimeline, ThreadStartingBeforeInitEndedLeadsToStartup) {
  TraceBuilder b(0, 1);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 5, 6, 1);  // thread 1 while MPI_Init had not returned yet
  b.finalize(50);
  Model m(std::move(b));
  EXPECT_EQ(m.tl.prev[m.ev(kCall_MPI_Barrier)], kNoEvent);
  EXPECT_EQ(m.tl.prev[m.ev(kCall_MPI_Finalize)], m.ev(kCall_MPI_Init));
}

TEST(ReplayTimeline, InitThreadIsTheOneThatCalledMpiInit) {
  TraceBuilder b(0, 1);
  b.call(kCall_MPI_Init, 2, 3, 1);      // MPI_Init on the second recorded thread
  b.call(kCall_MPI_Barrier, 10, 11, 0);  // the first thread's first call
  Model m(std::move(b));
  EXPECT_EQ(m.tl.init_slot, 1u);
  EXPECT_EQ(m.tl.prev[m.ev(kCall_MPI_Barrier)], m.ev(kCall_MPI_Init));
  EXPECT_EQ(m.tl.prev[m.ev(kCall_MPI_Init)], kNoEvent);
}

TEST(ReplayTimeline, GapsGoBeforeTheFirstCallAtOrAfterThem) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  b.call(kCall_MPI_Barrier, 20, 21);
  b.call(kCall_MPI_Barrier, 40, 41);
  b.gap(0, 3, 50);
  b.call(kCall_MPI_Pcontrol, 50, 51).aux = 1;
  b.gap(0, 2, 45, 1);  // written by thread 1, whose next call comes much later
  b.call(kCall_MPI_Barrier, 300, 301, 1);
  Model m(std::move(b));
  ASSERT_EQ(m.tl.gaps.size(), 2u);
  const uint32_t pc = m.ev(kCall_MPI_Pcontrol);
  EXPECT_EQ(m.tl.gaps[0].before, pc) << "thread 1's gap belongs at its time, not at thread 1's next call";
  EXPECT_EQ(m.tl.gaps[1].before, pc);
  EXPECT_EQ(m.tl.gaps[0].count + m.tl.gaps[1].count, 5u);
}

TEST(ReplayTimeline, HandleOfAFreedCommunicatorIsUnknown) {
  TraceBuilder b(0, 2);
  const int rec = b.comm(0x2000, 77, {0, 1});
  b.init(0, 1);
  b.call(kCall_MPI_Barrier, 10, 11).comm = 0x2000;
  b.call(kCall_MPI_Comm_free, 20, 21).comm = 0x2000;
  // MPI reused the handle for a communicator made by a call libcpath does not wrap.
  b.call(kCall_MPI_Barrier, 30, 31).comm = 0x2000;
  Model m(std::move(b));
  EXPECT_EQ(m.tl.ev[m.ev(kCall_MPI_Barrier, 0)].comm, rec);
  EXPECT_EQ(m.tl.ev[m.ev(kCall_MPI_Comm_free)].comm, rec);
  EXPECT_EQ(m.tl.ev[m.ev(kCall_MPI_Barrier, 1)].comm, -1);
  EXPECT_EQ(m.ops.unknown_comm, 1u);
}

// At finalize the timeline is built while the decoded events' pages are given back: the copies
// must be exactly those the plain build makes, on one thread (no merge) and on two interleaved
// threads (merged), with completion lists of varying length, on traces long enough that pages
// really are released (several MiB of events).
namespace {

TraceBuilder long_trace(int threads) {
  TraceBuilder b(0, 2);
  b.init(0, 10);
  uint64_t req = 1;
  for (int i = 0; i < 60000; ++i) {
    const uint32_t th = static_cast<uint32_t>(i % threads);
    const int64_t t = 100 + 10 * i;
    if (i % 3 == 2) {
      std::vector<Completion> done;
      for (int k = 0; k < 1 + i % 4; ++k) done.push_back(TraceBuilder::done(req++, i % 2, k));
      b.complete(kCall_MPI_Waitall, t, t + 5, done, {}, th);
    } else {
      b.p2p(i % 2 ? kCall_MPI_Isend : kCall_MPI_Irecv, t, t + 3, 1, i % 7, 8 + i, req, th);
    }
  }
  return b;
}

void expect_same_timeline(int threads) {
  TraceBuilder b = long_trace(threads);
  RankTrace copy = b.t;
  const Timeline want = build_timeline(copy);
  const Timeline got = build_timeline_releasing(b.t);
  ASSERT_EQ(got.ev.size(), want.ev.size());
  for (size_t i = 0; i < want.ev.size(); ++i) {
    const TimelineEvent &g = got.ev[i], &w = want.ev[i];
    ASSERT_EQ(g.begin, w.begin) << i;
    ASSERT_EQ(g.end, w.end) << i;
    ASSERT_EQ(got.slot(static_cast<uint32_t>(i)), want.slot(static_cast<uint32_t>(i))) << i;
    ASSERT_EQ(got.root(static_cast<uint32_t>(i)), want.root(static_cast<uint32_t>(i))) << i;
    ASSERT_EQ(g.comm, w.comm) << i;
    ASSERT_EQ(g.e.call, w.e.call) << i;
    ASSERT_EQ(g.e.tag, w.e.tag) << i;
    ASSERT_EQ(got.bytes(static_cast<uint32_t>(i)), want.bytes(static_cast<uint32_t>(i))) << i;
    ASSERT_EQ(got.callsite(static_cast<uint32_t>(i)), want.callsite(static_cast<uint32_t>(i))) << i;
    ASSERT_EQ(got.args[i].req, want.args[i].req) << i;
    ASSERT_EQ(g.e.list_begin, w.e.list_begin) << i;
    ASSERT_EQ(g.e.list_count, w.e.list_count) << i;
    ASSERT_EQ(got.prev[i], want.prev[i]) << i;
  }
  ASSERT_EQ(got.completions.size(), want.completions.size());
  for (size_t i = 0; i < want.completions.size(); ++i) {
    ASSERT_EQ(got.completions[i].req, want.completions[i].req) << i;
    ASSERT_EQ(got.completions[i].tag, want.completions[i].tag) << i;
  }
  // The release happened: the first decoded events of every thread now read as zeros (else
  // this comparison would prove nothing about building from released pages).
  for (const DecodedThread& d : b.t.threads) {
    size_t zero = 0;
    for (size_t i = 0; i < 1000; ++i) zero += d.events[i].t_end == 0 && d.events[i].call == 0;
    EXPECT_GT(zero, 900u);
  }
}

}  // namespace

TEST(ReplayTimeline, ReleasingBuildCopiesTheSameEventsOneThread) { expect_same_timeline(1); }

TEST(ReplayTimeline, ReleasingBuildCopiesTheSameEventsTwoThreads) { expect_same_timeline(2); }

// What few calls carry is kept beside the 64-byte events: Sendrecv's receive side, the Test
// family's polled lists (in the recording thread's store; calls of one loop may share one
// stored list), and the recording thread's id, which need not be its slot. Merged from two
// threads, each event must still find its own.
TEST(ReplayTimeline, FewCallsKeepSecondPeersAndPollsBesideTheEvents) {
  TraceBuilder b(0, 3);
  b.init(0, 10);
  Event& sr = b.p2p(kCall_MPI_Sendrecv, 40, 50, 1, 5, 8, 0, 1);  // thread slot 1
  sr.peer2 = 2;
  sr.tag2 = 9;
  b.t.threads[1].events.back().thread = 7;
  b.p2p(kCall_MPI_Irecv, 20, 21, 1, 6, 8, 0xa);
  b.complete(kCall_MPI_Testall, 30, 31, {}, {0xa, 0xb});
  b.complete(kCall_MPI_Testall, 60, 61, {}, {0xc});
  b.complete(kCall_MPI_Testall, 62, 63, {}, {0xe}, 1);  // slot 1's own store: its index 0
  b.t.threads[1].events.back().thread = 7;
  Event& again = b.complete(kCall_MPI_Testall, 64, 65, {}, {});
  again.poll_begin = 0;  // the loop's first list, stored once
  again.poll_count = 2;
  b.p2p(kCall_MPI_Send, 70, 80, 2, 3);
  for (Event& e : b.t.threads[0].events) e.thread = 4;
  Model m(std::move(b));
  const Timeline& tl = m.tl;
  const uint32_t send_recv = m.ev(kCall_MPI_Sendrecv), t1 = m.ev(kCall_MPI_Testall, 0), t2 = m.ev(kCall_MPI_Testall, 1),
                 send = m.ev(kCall_MPI_Send);
  EXPECT_EQ(tl.second_peer(send_recv).peer, 2);
  EXPECT_EQ(tl.second_peer(send_recv).tag, 9);
  EXPECT_EQ(tl.second_peer(send).peer, -1) << "a call without a second peer";
  uint32_t n = 0;
  const uint64_t* p = tl.polls(t1, &n);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(p[0], 0xau);
  EXPECT_EQ(p[1], 0xbu);
  p = tl.polls(t2, &n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(p[0], 0xcu);
  p = tl.polls(m.ev(kCall_MPI_Testall, 2), &n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(p[0], 0xeu) << "slot 1's list, not slot 0's first";
  const uint64_t* first = tl.polls(t1, &n);
  EXPECT_EQ(tl.polls(m.ev(kCall_MPI_Testall, 3), &n), first) << "one stored list: the same pointer";
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(tl.polls(send, &n), nullptr);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(tl.thread_of(send_recv), 7u);
  EXPECT_EQ(tl.thread_of(send), 4u);
  EXPECT_EQ(tl.thread_of(t1), 4u);
  static_assert(sizeof(TimelineEvent) == 48, "48 bytes per event");
}

// Merged polls (docs/trace-format.md): the calls each timeline event stands for follow their
// thread's decoded event when threads interleave, and the path counts them, or a partly covered
// run's share by time.
TEST(ReplayTimeline, MergedPollsAreCountedAsCallsOnThePath) {
  TraceBuilder b(0, 1);
  b.init(0, 100);
  b.call(kCall_MPI_Iprobe, 1000, 2000, 0);  // thread 0: a run of 1 + 99 polls
  b.call(kCall_MPI_Iprobe, 1500, 1600, 1);  // thread 1: 1 + 9
  b.call(kCall_MPI_Iprobe, 3000, 3100, 0);  // a poll alone
  b.t.threads[0].repeats = {{1, 60}, {1, 39}};  // two repeat records on one event add up
  b.t.threads[1].repeats = {{0, 9}};
  b.finalize(4000);
  Model m(std::move(b));
  const uint32_t run0 = m.ev(kCall_MPI_Iprobe, 0), run1 = m.ev(kCall_MPI_Iprobe, 1), alone = m.ev(kCall_MPI_Iprobe, 2);
  ASSERT_EQ(m.tl.slot(run1), 1u);
  EXPECT_EQ(m.tl.calls(run0), 100u);
  EXPECT_EQ(m.tl.calls(run1), 10u);
  EXPECT_EQ(m.tl.calls(alone), 1u);
  EXPECT_EQ(m.tl.calls(m.ev(kCall_MPI_Init)), 1u);
  SiteNames names;
  PathProfiler prof(m.tl, names, 0);
  prof.add({Segment{1000, 2000, run0, kNoEvent, SegmentKind::Mpi}, Segment{1500, 1600, run1, kNoEvent, SegmentKind::Mpi},
            Segment{3000, 3100, alone, kNoEvent, SegmentKind::Mpi}});
  const PathProfile whole = prof.finish();
  EXPECT_EQ(whole.call_count[kCall_MPI_Iprobe], 111.0);
  // A tenth of the first run on the path (a loop its partner ended near its end): 10 calls.
  PathProfiler part(m.tl, names, 0);
  part.add({Segment{1900, 2000, run0, kNoEvent, SegmentKind::Mpi, true}});
  EXPECT_EQ(part.finish().call_count[kCall_MPI_Iprobe], 10.0);
}

// Rule 5's computation between two calls of a thread: a gap of 1 ms or more before a poll in
// which the thread's clock (read at polls) ran less than 10 ms counts as that CPU time, so a
// polling thread descheduled for 80 ms computed 0.5 ms there; other gaps stay wall time.
TEST(ReplayTimeline, ComputationBeforeAPollIsAtMostTheThreadsCpuTime) {
  TraceBuilder b(0, 1);
  const int64_t ms = 1000000;
  b.init(0, 100);
  b.p2p(kCall_MPI_Irecv, 200, 300, 1, 5, 8, 0x10);
  b.complete(kCall_MPI_Test, 1 * ms, 1 * ms + 100, {}, {0x10});   // read at its end: 5 ms of CPU
  b.complete(kCall_MPI_Test, 81 * ms, 81 * ms + 100, {}, {0x10});  // read: 5.5 ms
  b.complete(kCall_MPI_Test, 81 * ms + 600000, 81 * ms + 600100, {}, {0x10});  // 0.6 ms later: wall
  b.p2p(kCall_MPI_Send, 150 * ms, 150 * ms + 100, 1, 6);  // not a poll: wall (68.4 ms)
  b.complete(kCall_MPI_Test, 240 * ms, 240 * ms + 100, {}, {0x10});  // 65 ms of CPU since the last read: wall
  b.complete(kCall_MPI_Test, 300 * ms, 300 * ms + 100, {}, {0x10});  // 20 ms of CPU in 60: work, wall
  b.t.threads[0].cpu = {{1 * ms + 100, 5 * ms}, {81 * ms + 100, 5 * ms + 500000}, {81 * ms + 600100, 6 * ms},
                        {240 * ms + 100, 71 * ms}, {300 * ms + 100, 91 * ms}};
  b.finalize(400 * ms);
  Model m(std::move(b));
  const uint32_t t4 = m.ev(kCall_MPI_Test, 4);
  const uint32_t t0 = m.ev(kCall_MPI_Test, 0), t1 = m.ev(kCall_MPI_Test, 1), t2 = m.ev(kCall_MPI_Test, 2),
                 t3 = m.ev(kCall_MPI_Test, 3), send = m.ev(kCall_MPI_Send, 0);
  EXPECT_EQ(m.tl.work_between(t0, t1), 500000) << "descheduled: the CPU time, not 80 ms";
  EXPECT_EQ(m.tl.compute_between(t0, t1), 80 * ms - 100) << "the time outside MPI stays wall time";
  EXPECT_EQ(m.tl.work_between(t1, t2), 600000 - 100) << "below 1 ms: the wall time";
  EXPECT_EQ(m.tl.work_between(t2, send), 150 * ms - (81 * ms + 600100));
  EXPECT_EQ(m.tl.work_between(t0, send), 500000 + 600000 - 100 + 150 * ms - (81 * ms + 600100));
  EXPECT_EQ(m.tl.work_between(send, t3), 240 * ms - (150 * ms + 100)) << "65 ms on the CPU since the last read: work";
  EXPECT_EQ(m.tl.work_between(t3, t4), 60 * ms - 100) << "10 ms or more on the CPU: work of its own, wall time";
}

// The imbalance table's per-rank totals of a compute activity: with two threads the timeline's
// previous event is often the other thread's; the compute before a call is its own thread's.
TEST(ReplayTimeline, ActivityTotalsTakeComputeFromTheOwnThread) {
  TraceBuilder b(0, 1);
  b.init(0, 100);
  b.call(kCall_MPI_Send, 1000, 1100, 0);
  b.call(kCall_MPI_Iprobe, 1500, 1600, 1);  // the other thread, between them
  b.call(kCall_MPI_Recv, 2000, 2100, 0);
  b.finalize(4000);
  Model m(std::move(b));
  const uint32_t send = m.ev(kCall_MPI_Send), recv = m.ev(kCall_MPI_Recv);
  ASSERT_EQ(m.tl.prev[recv], send);
  SiteNames names;
  const std::string act = describe_activity(Segment{1100, 2000, recv, send, SegmentKind::Compute}, m.tl, names);
  const std::vector<double> t = activity_totals({act}, m.tl, names, nullptr);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], 900.0) << act;
}

// Two threads in the same activity at once: the rank's time in it is wall-clock time (the
// union), as on the path, not the threads' sum. Known by construction: compute between
// MPI_Send and MPI_Recv on [1100, 2000) and, nested, [1150, 1900), then alone [3100, 3500):
// 1300 ns (the sum would be 2050); the two MPI_Sends [1000, 1100) and [1050, 1150): 150 ns.
TEST(ReplayTimeline, ActivityTotalsCountThreadsAtOnceOnce) {
  TraceBuilder b(0, 1);
  b.init(0, 100);
  b.call(kCall_MPI_Send, 1000, 1100, 0);
  b.call(kCall_MPI_Send, 1050, 1150, 1);
  b.call(kCall_MPI_Recv, 1900, 1950, 1);
  b.call(kCall_MPI_Recv, 2000, 2100, 0);
  b.call(kCall_MPI_Send, 3000, 3100, 1);
  b.call(kCall_MPI_Recv, 3500, 3600, 1);
  b.finalize(4000);
  Model m(std::move(b));
  const uint32_t send = m.ev(kCall_MPI_Send), recv = m.ev(kCall_MPI_Recv, 1);
  ASSERT_EQ(m.tl.ev[recv].begin, 2000);
  ASSERT_EQ(m.tl.prev[recv], send);
  SiteNames names;
  const std::string compute = describe_activity(Segment{1100, 2000, recv, send, SegmentKind::Compute}, m.tl, names);
  const std::string mpi = describe_activity(Segment{1000, 1100, send, kNoEvent, SegmentKind::Mpi}, m.tl, names);
  const std::vector<double> t = activity_totals({compute, mpi}, m.tl, names, nullptr);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], 1300.0) << compute;
  EXPECT_EQ(t[1], 150.0 + 100.0) << mpi;  // and the third MPI_Send, alone
}

// The what-if's new paths are profiled through activity ids (make_activity_ids): the same
// rows, times and counts as by hashing each segment's activity, also for a merged poll run,
// the start-up and a thread's first call.
TEST(ReplayTimeline, ProfileByActivityIdsIsTheHashedOne) {
  TraceBuilder b(0, 1);
  b.init(0, 100);
  b.call(kCall_MPI_Send, 1000, 1100, 0);
  b.call(kCall_MPI_Iprobe, 1500, 1600, 1);
  b.call(kCall_MPI_Recv, 2000, 2100, 0);
  b.call(kCall_MPI_Iprobe, 2500, 3000, 1);
  b.t.threads[1].repeats = {{1, 9}};
  b.finalize(4000);
  Model m(std::move(b));
  const uint32_t send = m.ev(kCall_MPI_Send), recv = m.ev(kCall_MPI_Recv), fin = m.ev(kCall_MPI_Finalize);
  const uint32_t probe = m.ev(kCall_MPI_Iprobe, 1);
  std::vector<Segment> path = {Segment{2100, 4000, fin, m.tl.prev[fin], SegmentKind::Compute},
                               Segment{2000, 2100, recv, kNoEvent, SegmentKind::Mpi},
                               Segment{1100, 2000, recv, send, SegmentKind::Compute},
                               Segment{2600, 2700, probe, kNoEvent, SegmentKind::Mpi, true},
                               Segment{1000, 1100, send, kNoEvent, SegmentKind::Mpi},
                               Segment{100, 1000, send, m.tl.prev[send], SegmentKind::Compute},
                               Segment{0, 0, m.ev(kCall_MPI_Init), kNoEvent, SegmentKind::Startup}};
  SiteNames names;
  PathProfiler hashed(m.tl, names, 0);
  hashed.add(path);
  PathProfiler by_id(m.tl, names, 0, nullptr, make_activity_ids(m.tl));
  by_id.add(std::vector<Segment>(path.begin(), path.begin() + 3));
  by_id.add(std::vector<Segment>(path.begin() + 3, path.end()));
  const PathProfile a = hashed.finish(), c = by_id.finish();
  EXPECT_EQ(a.activities, c.activities);
  EXPECT_EQ(a.sites, c.sites);
  EXPECT_EQ(a.path_by_activity, c.path_by_activity);
  EXPECT_EQ(a.call_count, c.call_count);
  EXPECT_FALSE(a.activities.empty());
  // Against values known by construction, not only the hashed profile: the compute between
  // the Send's end and the Recv's begin (900 ns, one instance), and the passed fifth of the
  // ten-poll run (2 calls).
  const std::string compute = "0\x1f" "compute\x1f" + describe_activity(path[2], m.tl, names);
  ASSERT_TRUE(c.activities.count(compute)) << compute;
  EXPECT_EQ(c.activities.at(compute), (std::vector<double>{900.0, 1.0}));
  EXPECT_EQ(c.call_count[kCall_MPI_Iprobe], 2.0);
}
