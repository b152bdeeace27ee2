// Communication operations of one rank, reconstructed from its timeline: every send, receive
// and collective instance, with the event that posted it, the event holding its arguments
// (the *_init template for persistent requests) and the event that completed it. Request and
// message handles are followed through Start/Wait*/Test*/Request_free/Mprobe/Mrecv here, so
// later stages never see a handle. Collective instances get their sequence number on their
// communicator (rule 8: gaps included), and every op its first unsuccessful poll (rule 5).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "call_info.h"
#include "timeline.h"

namespace cpath {

enum class OpKind : uint8_t {
  Send,
  Recv,
  Peek,        // Probe / Iprobe that found a message: sees the next message, does not take it
  Collective,  // collective instance (including communicator creation on the parent)
  Other,       // one-sided or I/O request: completed, never matched
  // MPI_Buffer_detach waiting for a buffered send still in the attached buffer: completed by the
  // detach, never matched itself; its partners come from the send's receive (OpTable::flushes).
  Flush
};

constexpr uint32_t kNoInit = UINT32_MAX;

// 40 bytes, one per communication op of the rank, held through most of the analysis beside the
// timeline. What the call recorded and nothing changes (size, root) is read from the call
// (op_bytes, op_root); the request a first poll listed is in OpTable::poll_reqs (few ops are
// polled).
struct Op {
  uint32_t post = kNoEvent;  // timeline index of the posting call
  uint32_t args = kNoEvent;  // timeline index of the call that carries the arguments
  uint32_t done = kNoEvent;  // timeline index of the completing call (== post for blocking)
  int32_t comm = -1;         // communicator record
  int32_t peer = -1;         // communicator-local partner (receives: actual source)
  int32_t tag = -1;          // receives: actual tag
  // Collectives: n-th collective call on `comm` by this rank (rule 8); a persistent
  // collective's instance: n-th start of its init, outside the communicator's count.
  uint32_t seq = 0;
  // (Rule 5's first poll of the op is OpTable::first_poll: most ops are never polled.)
  OpKind kind = OpKind::Other;
  SendMode mode = SendMode::None;
  Pattern pattern = Pattern::None;
  // Flags as bits: one byte instead of four, and the op fits 32 bytes.
  bool cancelled : 1;
  bool freed_active : 1;  // MPI_Request_free on an active request: completion time unknown
  // A data collective (its call has a payload size: not a barrier, communicator, window or file
  // collective, not neighbourhood) in which this member moves no bytes. Nothing obliges MPI to
  // synchronise it (Open MPI returns at once from a zero-count Allreduce, MPICH waits for some
  // members), so it waits only for candidates that began before it ended (rule 4).
  bool no_data : 1;
  // An instance of a persistent collective init on a known communicator: MPI-4 pairs instances
  // by init, and members may start different inits in different orders (rule 4); `seq` counts
  // the starts of its init (args).
  bool persistent : 1;
  // A collective on a window or file (MPI_Win_fence, MPI_File_write_all, ...): MPI orders
  // these per handle, not with its communicator's own collectives, so `seq` counts the
  // collectives on that window or file (OpTable::object_ord names it).
  bool on_object : 1;
  Op() : cancelled(false), freed_active(false), no_data(false), persistent(false), on_object(false) {}
};
static_assert(sizeof(Op) <= 32, "32 bytes per op");

// The op's size in bytes as its call recorded it (a Sendrecv's receive half: 0, the call
// records the send's).
inline uint64_t op_bytes(const Timeline& tl, const Op& o) {
  if (o.args >= tl.ev.size()) return 0;
  return o.kind == OpKind::Recv && call_info(tl.ev[o.args].e.call).kind == CallKind::Sendrecv ? 0 : tl.bytes(o.args);
}
// A rooted collective's root as its call recorded it (communicator-local, or MPI_ROOT /
// MPI_PROC_NULL's encodings on an intercommunicator), else -1.
inline int32_t op_root(const Timeline& tl, const Op& o) { return o.args < tl.ev.size() ? tl.root(o.args) : -1; }

struct OpTable {
  std::vector<Op> ops;
  // Ops completed by each timeline event: done_begin[e] .. done_begin[e+1] index done_ops.
  std::vector<uint32_t> done_begin;
  std::vector<uint32_t> done_ops;
  // Rule 5, (op, event) sorted by op, for the ops that were polled: the first Test-family call
  // that polled the op's request without completing it, or the first unsuccessful
  // Iprobe/Improbe on the (communicator, source, tag) this blocking receive or probe was posted
  // with, since the previous one on that key. By any thread; a first poll by another thread is
  // in other_thread_polls. first_poll_by() is the one to read.
  std::vector<std::pair<uint32_t, uint32_t>> first_polls;
  uint32_t first_poll(uint32_t op) const { return paired_with(first_polls, op, kNoEvent); }
  // (op, event) first polls by threads other than the one of first_poll, sorted.
  std::vector<std::pair<uint32_t, uint32_t>> other_thread_polls;
  // (op, request handle) for ops whose first_poll is a Test-family call, sorted by op: the
  // handle that poll listed, which later polls of the loop list too.
  std::vector<std::pair<uint32_t, uint64_t>> poll_reqs;
  uint64_t poll_req(uint32_t op) const { return paired_with(poll_reqs, op, uint64_t{0}); }
  // Receives matched by MPI_Mprobe/MPI_Improbe, sorted by op: the MPI_Mrecv/MPI_Imrecv that took
  // the message, and for MPI_Imrecv its request's op (whose done is the completing call). A
  // rendezvous send waits for that receive, not for the probe (rule 3): the data moves only
  // once a buffer is given.
  struct MatchedRecv {
    uint32_t call = kNoEvent;
    uint32_t request_op = kNoEvent;
  };
  std::vector<std::pair<uint32_t, MatchedRecv>> mrecvs;
  MatchedRecv mrecv(uint32_t op) const { return paired_with(mrecvs, op, MatchedRecv{}); }
  // (buffered send op, flush op) sorted by send: the MPI_Buffer_detach after a buffered send
  // (the first of the rank's after its post) waits until the message has left the buffer; above
  // the eager limit that is once its receive is posted (rule 3). Open MPI and MPICH both held a
  // detach 70 ms for the receive of a 1 MiB MPI_Bsend. The send itself stays local.
  std::vector<std::pair<uint32_t, uint32_t>> flushes;
  uint32_t flush_of(uint32_t send_op) const { return paired_with(flushes, send_op, kNoEvent); }
  // (generalized request op, its MPI_Grequest_complete event): the call completing the request
  // waits for the program to complete it, maybe on another thread (its partner, rule 3).
  std::vector<std::pair<uint32_t, uint32_t>> grequest_completes;
  // Collective calls per communicator record, gaps included: what members compare (rule 8).
  // Persistent collective instances are not among them.
  std::vector<uint32_t> coll_count;
  // Per communicator record, the starts of each of its persistent collective inits, in init
  // order (an init never started: 0). Each init's instances are paired on their own key
  // (persistent_key) by their start number.
  std::vector<std::vector<uint32_t>> persistent_starts;
  // Per communicator record, the collectives on each of its windows and files, in creation
  // order (gaps included). Each window's or file's are paired on their own key (object_key).
  std::vector<std::vector<uint32_t>> object_counts;
  // (op, init) for the instances of persistent collectives (Op::persistent), sorted by op:
  // which of the persistent collective inits on its communicator the instance belongs to.
  std::vector<std::pair<uint32_t, uint32_t>> init_ords;
  uint32_t init_ord(uint32_t op) const { return paired_with(init_ords, op, kNoInit); }
  // (op, object) for the collectives on windows and files (Op::on_object), sorted by op: which
  // window or file of its communicator, numbered in creation order (the same on every member).
  std::vector<std::pair<uint32_t, uint32_t>> object_ords;
  uint32_t object_ord(uint32_t op) const { return paired_with(object_ords, op, 0u); }
  // Unsuccessful MPI_Win_test calls of an open exposure epoch, by event: which window they
  // tested (its creation's number on its communicator), for rule 5's polling loops.
  struct WinTest {
    uint32_t event = 0;
    uint32_t ordinal = 0;
    int32_t comm = -1;
    WinTest(uint32_t e, uint32_t o, int32_t c) : event(e), ordinal(o), comm(c) {}
  };
  std::vector<WinTest> win_tests;
  const WinTest* win_test(uint32_t event) const {
    auto it = std::lower_bound(win_tests.begin(), win_tests.end(), event,
                               [](const WinTest& w, uint32_t v) { return w.event < v; });
    return it != win_tests.end() && it->event == event ? &*it : nullptr;
  }
  // Counters for the report's "approximated" section.
  uint64_t unknown_comm = 0;       // ops on communicators whose record or group is unknown
  uint64_t unknown_requests = 0;   // completions of handles we never saw created
  uint64_t never_completed = 0;    // ops still active at MPI_Finalize
  uint64_t freed_active = 0;
  uint64_t intercomm_ops = 0;
  uint64_t rma_sync_local = 0;     // passive-target synchronisation; PSCW on unknown windows or groups
};

OpTable build_ops(const Timeline& tl);

// Rule 10: the tags of the messages that model MPI_Win_post -> MPI_Win_start (complete =
// false) and MPI_Win_complete -> MPI_Win_wait on the window created `ordinal`-th among the
// collectives of its communicator. Far below any tag a program can use (MPI tags are >= 0,
// MPI_ANY_TAG is kTagAny), so they share no channel with the program's messages.
constexpr int32_t kPscwTag0 = -(1 << 20);
inline int32_t pscw_tag(uint32_t ordinal, bool complete) {
  return static_cast<int32_t>(static_cast<int64_t>(kPscwTag0) - 2 * static_cast<int64_t>(ordinal % (1u << 29)) - (complete ? 1 : 0));
}
inline bool is_pscw_tag(int32_t tag) { return tag <= kPscwTag0; }
inline bool pscw_tag_is_complete(int32_t tag) { return ((static_cast<int64_t>(kPscwTag0) - tag) & 1) != 0; }

// The key the instances of a communicator's `init_ord`-th persistent collective are paired
// under: one per init, as if each were a communicator of its own with the same group.
inline uint64_t persistent_key(uint64_t comm_key, uint32_t init_ord) {
  uint64_t x = comm_key ^ (0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(init_ord) + 1));
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ (x >> 29);
}
// The key the collectives on a communicator's `ord`-th window or file are paired under.
inline uint64_t object_key(uint64_t comm_key, uint32_t ord) { return persistent_key(~comm_key, ord); }
// The key an instance of collective op `op` on record `rec` (key `comm_key`) is paired under.
inline uint64_t instance_key(uint64_t comm_key, const OpTable& ops, uint32_t op) {
  const Op& o = ops.ops[op];
  return o.persistent ? persistent_key(comm_key, ops.init_ord(op))
                      : o.on_object ? object_key(comm_key, ops.object_ord(op)) : comm_key;
}

// The first call after event e of e's thread that may progress MPI (MPI_Pcontrol does not),
// or kNoEvent. One step on a single thread.
inline uint32_t next_call_of_thread(const Timeline& tl, uint32_t e) {
  for (size_t i = size_t{e} + 1; i < tl.ev.size(); ++i)
    if (tl.slot(i) == tl.slot(e) && call_info(tl.ev[i].e.call).kind != CallKind::Pcontrol)
      return static_cast<uint32_t>(i);
  return kNoEvent;
}

// Calls that never wait for another process: posts of non-blocking operations, persistent
// inits, starts, frees, cancels, one-sided transfers, MPI_Pready, MPI_Pcontrol and local calls
// (MPI_Buffer_detach may wait for its buffered sends). The thread keeps working across them.
bool never_waits(const CallInfo& ci);

// Whether event x polled MPI's progress engine (rule 4, progress): an unsuccessful Test-family
// call or Iprobe, or a call that can block (not never_waits) and lasted kProgressWaitNs or more.
bool progresses_mpi(const Timeline& tl, uint32_t x);

// The thread went from `post` to `later` computing less than `gap_ns` (send_modes.h's
// kProgressGapNs): it was in MPI, progressing, all along, so `later` is no candidate of a
// partner waiting for its progress (rules 3 and 4).
inline bool stayed_in_mpi(const Timeline& tl, uint32_t post, uint32_t later, int64_t gap_ns) {
  return tl.slot(later) == tl.slot(post) && tl.compute_between(post, later) < gap_ns;
}

// The first unsuccessful poll of `op` made by the thread of timeline slot `slot`, or kNoEvent.
uint32_t first_poll_by(const OpTable& ops, const Timeline& tl, uint32_t op, uint32_t slot);

// Whether event x, of the thread of `op`'s first poll p (x between p and the completion),
// polls the same thing unsuccessfully: a Test-family call listing the polled handle without
// completing it, or an unsuccessful Iprobe/Improbe on p's (communicator, source, tag).
bool polls_like(const OpTable& ops, const Timeline& tl, uint32_t op, uint32_t p, uint32_t x);

}  // namespace cpath
