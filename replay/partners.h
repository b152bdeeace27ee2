// What the replay learns for each communication op of a rank: the begin of the related call
// on another rank (docs/pag-rules.md rules 3 and 4). For a receive that is the matching send's
// begin, for a send that waits for its receiver the matching receive's begin, for a
// collective the latest begin its pattern waits for.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace cpath {

struct Partner {
  int32_t rank = -1;       // world rank of the related call (-1: none known)
  uint32_t event = 0;      // its timeline index on that rank
  int64_t begin = 0;       // its begin on the aligned clock
  bool valid() const { return rank >= 0; }
};

// Per collective op, how its partner was found when not by its pattern alone (rule 4):
// PartnerTable::observed, and replay_collectives' decision kept through the clock repair.
enum : uint8_t { kUnsynchronised = 1, kBeyondPattern = 2 };
// A member waited beyond its pattern only for a member that entered this much after it (and
// after its pattern's partner), or the clocks' error if larger: a root's eager sends, a few
// calls' bookkeeping, take microseconds, and a receiver that entered while they ran did not hold
// it. Far below a scheduler time slice; the probes' waits are tens of milliseconds.
constexpr int64_t kBeyondPatternFloorNs = 20000;

struct PartnerTable {
  std::vector<Partner> of_op;  // one per op
  // Second candidates, sorted by op: the receive of a rendezvous or synchronous non-blocking
  // send also depends on the call that completed the send, that of a buffered send above the
  // eager limit on the sender's next call (rule 3).
  std::vector<std::pair<uint32_t, Partner>> extra;
  // Candidates of non-blocking collective members, sorted by op (rule 4, progress): the latest
  // of the other members' progress calls (their first call that polled MPI after the last
  // post). Such an instance completes only as its members' MPI progresses it, and a member
  // computing between post and wait moves nothing (an MPI_Iallreduce member that computed 80
  // ms after posting held the others' MPI_Wait 80 ms, both MPIs). The what-if keeps one only
  // where it bound in the measured run, as `held`.
  std::vector<std::pair<uint32_t, Partner>> progress;
  Partner init;  // MPI_Init: the latest MPI_Init entry
  // Collectives every member recorded, by op: the member whose completing call ended first,
  // with that end in `begin` (Barrier / NxN Completion, analysis/wait_states/completion.cpp).
  std::vector<std::pair<uint32_t, Partner>> first_end;
  // Per op, receives and peeks: the matched send as the receiver learnt it in the replay. The
  // wait-state patterns that depend on the sender's mode (Misarrangement, the breakdown by send
  // mode) read it here, because only the sender's trace holds the call.
  struct MatchedSend {
    uint16_t call = 0;   // the call carrying the send's arguments (MPI_Send, MPI_Issend, MPI_Bsend_init...)
    bool local = false;  // blocking and never waited for its receiver (eager standard, buffered, ready)
  };
  std::vector<MatchedSend> matched_send;
  // Per collective op, 1 when its partner is the one observed, not the pattern's latest member
  // (rule 4): it moved no data, or it ended before that member began by more than the clocks'
  // error, so the MPI library did not synchronise it. Such a call waits for nobody else.
  // kBeyondPattern: the member waited beyond its pattern (rule 4: the MPI's algorithm
  // synchronised a rooted, scan or neighbourhood instance) and its partner is no candidate of the pattern.
  std::vector<uint8_t> observed;
  bool observed_at(uint32_t op) const { return op < observed.size() && observed[op]; }
  bool beyond_pattern_at(uint32_t op) const { return op < observed.size() && observed[op] == kBeyondPattern; }
  // Per op, sends only: an eager send the MPI may hold until its receiver takes it (rule 3,
  // send_may_be_held), whose candidates are the receiver's calls. Whether the MPI held it is
  // its own choice; the re-timing keeps such a candidate only where it bound in the measured
  // run (docs/what-if.md), so a send the MPI let go stays let go.
  std::vector<bool> held;
  bool held_at(uint32_t op) const { return op < held.size() && held[op]; }

  explicit PartnerTable(size_t ops = 0) : of_op(ops), matched_send(ops) {}
  void sort_extra() {
    std::sort(extra.begin(), extra.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  // Calls f(partner) for every candidate of op.
  template <class F>
  void for_each(uint32_t op, F&& f) const {
    if (op < of_op.size() && of_op[op].valid()) f(of_op[op]);
    for_each_in(extra, op, f);
    for_each_in(progress, op, f);
  }
  template <class F>
  static void for_each_in(const std::vector<std::pair<uint32_t, Partner>>& v, uint32_t op, F&& f) {
    auto it = std::lower_bound(v.begin(), v.end(), op, [](const auto& e, uint32_t x) { return e.first < x; });
    for (; it != v.end() && it->first == op; ++it) f(it->second);
  }
};

struct ReplayStats {
  uint64_t sends_unmatched = 0;
  uint64_t recvs_unmatched = 0;
  uint64_t p2p_matched = 0;
  uint64_t collectives = 0;
  // Collective ops whose instance was not recorded on every member (paused recording, memory
  // cap): their partner is the latest member that recorded it.
  uint64_t collectives_incomplete = 0;
  // Collective calls that ended before the member the pattern makes them wait for began, by more
  // than the clocks' error bound: they did not wait for it (rule 4, "did not synchronise").
  uint64_t collectives_unsynchronised = 0;
  // Collective calls that waited for a member their rooted, scan or neighbourhood pattern does not wait for.
  uint64_t collectives_beyond_pattern = 0;
  // Persistent collective instances whose members' inits of the same position on the
  // communicator were different operations (made in different orders): paired wrongly.
  uint64_t collectives_mispaired = 0;
  // Communicators whose members counted different numbers of collective calls (counted once,
  // by the member of local rank 0): instances may be paired wrongly after the difference.
  uint64_t collective_count_mismatch = 0;
  // Receives of non-blocking rendezvous or synchronous sends that were never completed / freed while active:
  // the receive's edge to the sender's completing call is missing. Counted by the receiver.
  // Any other request left active or freed changes nothing in the graph (no call waits for it).
  uint64_t rendezvous_never_completed = 0;
  uint64_t rendezvous_freed = 0;
  // Sends and receives on a channel that several threads used at once (NumberedOps::thread_races).
  uint64_t thread_channel_order = 0;
};

}  // namespace cpath
