// cpath-ref: the sequential reference analysis, written from docs/pag-rules.md independently of
// the finalize-time analysis. It reads every rank's dumped trace (option dump=1) with the
// trace-file reader and record decoder of src/ (trace_file.*, trace_decoder.*: pure format
// code, tested by the codec unit tests) and the call table generated from the wrapper spec;
// everything after decoding is its own: time conversion with the trace's clock models, merging
// threads, communicator keys and groups, request linking, matching, collective instances, the
// PAG rules and the walk. It links nothing of replay/ or analysis/ (the ctest
// cpath_ref_independent checks the binary's symbols), so the differential tests compare two
// implementations of the rules.
//
// One file per part; a later analysis (wait states, communication matrices, what-if) adds its
// twin as one more file working on the Job below:
//   load.cpp         trace files -> Job::ranks
//   timeline.cpp     calls per rank on the global clock, communicators unified job-wide
//   requests.cpp     ops: request and message handles followed to their completing calls
//   matching.cpp     point-to-point pairs and their partner candidates (rule 3)
//   collectives.cpp  collective instances and their candidates (rule 4)
//   clocks.cpp       the clock-condition repair ("Clocks" B)
//   pag_walk.cpp     the edges (rules 1, 2, 5, 6) and the walk (rule 7)
//   main.cpp         command line and output
// and the twins of other analyses, on the loaded traces:
//   load_traces.cpp    trace loading shared by the twins
//   communication.cpp  communication matrices and size histograms (--comm)
//   startup.cpp        start-up figures per rank (--startup)
//   what_if.cpp        the what-if re-timing (--whatif)
//   wait_states.cpp    wait states and root causes (--waits), with wait_patterns.cpp
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "call_info.h"
#include "trace_file.h"

namespace cpref {

constexpr uint32_t kNone = ~0u;

// A call on some rank.
struct CallRef {
  int32_t rank = -1;
  uint32_t call = kNone;
  bool valid() const { return rank >= 0; }
};

struct Call {
  int64_t b = 0, e = 0;   // ns on the job's global clock (after the clock-condition repair)
  uint32_t thread = 0;    // position of the recording thread's section in the trace file
  uint32_t prev = kNone;  // previous call of the same thread
  uint32_t from = kNone;  // rule 1: the call whose end this call's begin leads to (kNone: start-up)
  // The thread's computation (time outside MPI calls) from its first call to this call's
  // begin; the repair keeps it (it moves a begin only with the previous end).
  int64_t compute_before = 0;
  // The same, less the time the thread spent off the CPU before polls (pag_walk.cpp's
  // thread_work): rule 5's computation.
  int64_t work_before = 0;
  int32_t comm = -1;      // communicator record of the call (index into RankTrace::comms)
  const cpath::Event* ev = nullptr;
  const cpath::DecodedThread* th = nullptr;  // owner of the event's completion / request lists
  const cpath::CallInfo& info() const { return cpath::call_info(ev->call); }
};

// Flush: MPI_Buffer_detach waiting for one buffered send still in the attached buffer; its
// candidates are those the send's receive gives a rendezvous send (matching.cpp).
enum class OpKind : uint8_t { Send, Recv, Peek, Coll, Local, Flush };

// One communication operation: a send, a receive, a probe that found a message, a collective
// instance, or something completed locally (one-sided, I/O requests).
struct Op {
  OpKind kind = OpKind::Local;
  uint32_t post = kNone;  // call that started it (Start for persistent requests)
  uint32_t args = kNone;  // call that holds its arguments (the *_init for persistent requests)
  uint32_t done = kNone;  // call that completed it
  int32_t comm = -1;      // communicator record
  int32_t peer = -1;      // communicator-local partner; receives: the actual source
  int32_t tag = -1;       // receives: the actual tag
  bool any_source = false, any_tag = false;  // posted with wildcards
  uint64_t bytes = 0;
  cpath::SendMode mode = cpath::SendMode::None;
  cpath::Pattern pattern = cpath::Pattern::None;
  int32_t root = -1;
  bool cancelled = false;
  bool freed = false;  // released by MPI_Request_free while active
  std::vector<CallRef> cands;  // partner candidates (rules 3 and 4)
  // Sends: an eager send the MPI may hold for its receiver, whose candidates are the receiver's
  // calls. The what-if keeps them only where one bound in the measured run.
  bool held = false;
  uint32_t flush = 0xffffffffu;  // buffered sends: the op of the MPI_Buffer_detach that waited for it
  // Non-blocking collectives (rule 4, progress; all, one-to-all and all-to-one patterns): every
  // member's first call that polled MPI after the last post (else its completing call), where it
  // computed 100 us or more after its post. Only the
  // latest of them (by current begin) is a candidate, and not when it is this member's own
  // (progress_candidate); the what-if keeps it only where it bound in the measured run.
  std::vector<CallRef> progress;
  CallRef send;              // receives and probes: the matched send's posting call
  // Receives matched by MPI_Mprobe/MPI_Improbe: the MPI_Mrecv/MPI_Imrecv that took the message
  // and, for MPI_Imrecv, the op of its request. A rendezvous send waits for these (the buffer),
  // not for the probe.
  uint32_t mrecv = 0xffffffffu;
  uint32_t mrecv_op = 0xffffffffu;
  uint16_t send_call = 0;    // ... the call holding its arguments (MPI_Send, MPI_Isend, ...)
  bool send_local = false;   // ... blocking, and it did not wait for its receiver
  bool own_in_set = false;   // collectives: the pattern's candidate set contains the member itself
  // Collectives: an instance some member did not record (neighbourhood: an in-neighbour, or no
  // topology). The what-if keeps only its measured latest member (docs/what-if.md, Limits).
  bool incomplete = false;
  // Collectives: a data collective in which this member moves no bytes (rule 4): its
  // candidates are those that began before it ended, and it constrains no clock.
  bool no_data = false;
  // Collectives: ended before the latest candidate L began, by more than twice the largest
  // clock error bound of the job (rule 4: MPI did not synchronise it). Like no_data: it waits
  // only for candidates that began before it ended, and constrains no clock.
  bool unsync = false;
  // Rooted and scan collectives on an intracommunicator: every other member's posting call
  // (rule 4, members that waited beyond their pattern). A member one of them entered after it
  // and its pattern's latest candidate, and before it ended, both beyond twice the clocks'
  // error, waited beyond its pattern (`beyond`): `others` join its candidates after the
  // pattern's first `pattern_cands`, its own call competes, and like unsync it waits only for
  // those that began before it ended and constrains no clock.
  std::vector<CallRef> others;
  bool beyond = false;
  size_t pattern_cands = 0;
  uint64_t seq = 0;          // collectives: sequence number on the communicator (rule 8, gaps included)
  // MPI-4 persistent collective instances: which persistent init of the communicator (in init
  // order) they are a start of, and `seq` counts that init's starts only. -1: not one.
  int64_t init = -1;
  // A collective on a window or file: which of its communicator's windows and files (in creation
  // order); its collectives have a sequence of their own (MPI orders them per handle).
  int64_t object = -1;
  // Rule 5: the first unsuccessful poll for this op by the thread of its completing call (a
  // Test-family call that listed its request, or an Iprobe on its key), or kNone.
  uint32_t first_poll = kNone;
  // Every such poll from first_poll on (same thread, before the completion), in call order.
  std::vector<uint32_t> polls;
};

// An unsuccessful probe: a call that looked for a message and found none (rule 5).
struct ProbePoll {
  uint32_t call = kNone;
  int32_t comm = -1, source = -1, tag = -1;  // -1: wildcard
};

// Collective calls made while recording was off (rule 8), placed before call `before`.
struct Gap {
  uint32_t before = 0;
  int32_t comm = -1;  // communicator record, or -1 (then obj names the window or file)
  uint64_t obj = 0;
  uint64_t count = 0;
};

struct Rank {
  cpath::RankTrace trace;
  std::vector<Call> calls;
  uint32_t init = kNone, finalize = kNone;  // MPI_Init(_thread) and the last MPI_Finalize
  std::vector<int32_t> comm_id;  // per communicator record: Job::comms index, or -1 (unknown)
  std::vector<Gap> gaps;  // by `before`
  std::vector<Op> ops;
  std::vector<std::vector<uint32_t>> done_at;  // per call: the ops it completed
  std::vector<ProbePoll> probe_polls;
  std::string host;
  int64_t eager_intra = -1, eager_inter = -1;  // -1: not recorded in the trace
  // Standard sends above these (and up to the eager limit) may be held for the receiver's
  // progress; -1: not recorded (nothing held).
  int64_t inline_intra = -1, inline_inter = -1;
  // Threads created after MPI_Init (trace meta thread_births): the thread (Event::thread), the
  // thread that created it (-1: none that had called MPI) and when, on the global clock.
  struct Birth {
    uint32_t thread;
    int64_t creator;
    int64_t at;
  };
  std::vector<Birth> births;
};

// A communicator as the job knows it: its members' world ranks in communicator-rank order.
struct Comm {
  std::vector<int32_t> world;
  bool inter = false;
  // Intercommunicator between two groups of this job: the other side's communicator (its
  // remote group), -1 when unknown.
  int32_t remote = -1;
  bool side1 = false;  // an intercommunicator's side (its key's "|s1")
  bool complete = false;  // every member's record was found
  bool world_group = false;  // MPI_COMM_WORLD's group, in its order (kCommWorldGroup)
  // Topology in-neighbours (local ranks, MPI_PROC_NULL left out) per local rank, from each
  // member's own record of the topology.
  std::vector<std::vector<int32_t>> sources;
  std::vector<std::vector<int32_t>> destinations;  // out-neighbours, likewise
  std::vector<char> topo_known;  // per local rank: its member recorded a topology
};

// What the reference could not place, by cause (docs/pag-rules.md rule 9).
struct Counts {
  uint64_t sends_unmatched = 0, recvs_unmatched = 0, p2p_skipped = 0, intercomm = 0, unknown_comm = 0;
  uint64_t coll_missing = 0, unknown_requests = 0, never_completed = 0, freed_active = 0, rma_sync = 0;
  uint64_t neighbour_without_topology = 0;
  uint64_t thread_channel_order = 0;  // sends and receives of a channel posted by threads at once
  uint64_t thread_start = 0;  // first calls of threads whose creator made calls after their birth
};

// What the clock-condition repair found (docs/pag-rules.md, "Clocks" B).
struct ClockRepair {
  bool applied = false;  // the traces carry the repair's parameters (else: traces before it)
  uint64_t violations = 0, repaired = 0, unrepaired = 0, shifted = 0;
  int64_t max_shift = 0;
  int rounds = 0;
  uint64_t unsynchronised = 0;  // collective calls MPI did not synchronise (Op::unsync)
  uint64_t beyond_pattern = 0;  // collective calls that waited beyond their pattern (Op::beyond)
};

struct Job {
  std::vector<Rank> ranks;
  std::vector<Comm> comms;
  int64_t job_begin = 0;  // earliest MPI_Init begin
  Counts counts;
  ClockRepair clock;
  // The job ended before MPI_Finalize (crash-time traces): the path ends where the records
  // end, and `missing` lists the ranks that left no trace.
  bool partial = false;
  std::vector<int> missing;
};

struct Segment {
  int rank;
  const char* kind;  // compute, mpi, startup
  int64_t begin, end;
  uint32_t call;
  bool passed = false;  // time the path passes inside a wait that began before `call` completed it
};

bool load_job(const std::string& dir, Job* job, std::string* error);  // load.cpp
void build_timelines(Job* job);                                       // timeline.cpp
void link_requests(Job* job);                                         // requests.cpp
void match_point_to_point(Job* job);                                  // matching.cpp
void match_collectives(Job* job);                                     // collectives.cpp
void link_begins(Job* job);                                           // pag_walk.cpp (rule 1)
void repair_clocks(Job* job, bool list_violations);                   // clocks.cpp
std::vector<Segment> walk_path(const Job& job, bool* truncated);      // pag_walk.cpp
// Rule 7: where the edge into call c's end vertex began at tb, before c did (a polling loop), the
// path's time [tb, until) on c's thread as what the thread did, latest first (until: c's begin,
// or its end where a re-timed loop ended before c's new begin; never a stretch twice):
// emit(kind, b, e, call, prev) with kind "mpi" (a call's time) or "compute" (the gap before
// `call`, after `prev`, kNone when `call` is the thread's first). begin/end give a call's times
// (measured, or re-timed by the what-if).
template <class Begin, class End, class Emit>
void passed_pieces(const Rank& r, uint32_t c, int64_t tb, int64_t until, Begin begin, End end, Emit emit) {
  for (uint32_t k = c; until > tb;) {
    const uint32_t p = r.calls[k].from;
    if (p == kNone) {
      emit("compute", tb, until, k, kNone);
      return;
    }
    const int64_t pe = std::min(end(p), until);
    if (std::max(pe, tb) < until) emit("compute", std::max(pe, tb), until, k, p);
    if (pe <= tb) return;
    const int64_t pb = std::max(begin(p), tb);
    if (pb < pe) emit("mpi", pb, pe, p, kNone);
    until = std::min(pb, pe);  // a re-timed loop may end before the later polls begin
    k = p;
  }
}
// what_if.cpp: --whatif (scenarios from the run's whatif.<rank>.txt), or --pop (pop = true:
// the POP factors, re-timing the ideal run itself)
int what_if_main(const Job& job, const std::string& dir, bool pop = false);
// The end edge of a call when it leads to another rank (a wait): the partner, its begin and
// where the waiting began (rule 5). partner invalid: the edge stays on the rank.
struct PartnerEdge {
  CallRef partner;
  int64_t partner_b = 0, wait_from = 0;
};
PartnerEdge partner_edge(const Job& job, int rank, uint32_t call);  // pag_walk.cpp
// Rule 5: the poll whose begin is the wait start of call c (which completes op) against the
// partner begin s, or kNone; *last: the loop's last poll that began before s.
uint32_t wait_poll(const Rank& r, uint32_t op, uint32_t c, int64_t s, uint32_t* last, bool progress = false);  // pag_walk.cpp
// Wait states and their root causes, in the line format of the analysis' waits.<rank>.txt,
// each line prefixed with the rank (wait_states.cpp; the twin of analysis/wait_states/).
void print_wait_states(const Job& job, const std::vector<Segment>& path);
// wait_patterns.cpp: the refinement of a Late Sender at (rank, call) waiting for `partner`, and
// the C lines (Barrier / NxN Completion, close send-receive pairs).
bool late_sender_wrong_order(const Job& job, int rank, uint32_t call, const CallRef& partner);
// 1: Misarrangement (MPI_Send), 2: Misarrangement (MPI_Bsend), 0: neither.
int misarrangement(const Job& job, int rank, uint32_t call, const CallRef& partner);
void print_time_in_calls(const Job& job, const std::set<std::pair<int, uint32_t>>& on_path);

// World rank of local rank `local` of the communicator of record `rec` on rank `r`, or -1.
int32_t world_of(const Job& job, int r, int32_t rec, int32_t local);
// World rank of the point-to-point partner `peer` (on an intercommunicator, in the remote group).
int32_t peer_world_of(const Job& job, int r, int32_t rec, int32_t peer);
// The job-wide communicator an op runs on, or -1 after counting why it cannot be placed
// (intercommunicator, communicator whose members are not all known). Point-to-point and
// collectives on an intercommunicator whose two groups are known run on one id both sides share.
int32_t op_comm(Job* job, const Rank& r, const Op& o);
// Rule 4, progress: the least work (ns) between a non-blocking collective member's post and its
// progress call that makes that call a candidate; also the most work between two polls of a
// loop waiting for such a candidate (rule 5).
constexpr int64_t kProgressGap = 100000;
// Rule 4, progress: a call that can block and lasted this long waited, polling MPI's progress.
constexpr int64_t kProgressWait = 50000;
// The latest of o.progress by current begin (ties: the lower rank) if it is another rank's,
// else an invalid CallRef: the progress candidate of op o of rank `rank`.
CallRef progress_candidate(const Job& job, int rank, const Op& o);
// A call that never waits for another process (a post, init, start, free, cancel, one-sided
// transfer, MPI_Pready, MPI_Pcontrol, a local call): its thread keeps working across it.
bool never_waits(const Call& c);

}  // namespace cpref
