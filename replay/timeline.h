// A rank's events from all its threads merged into one time-ordered timeline, with times on
// the aligned (global) clock and communicators resolved to their records. Each event also
// knows its predecessor under docs/pag-rules.md rule 1 (per thread), so the rest of the model
// never has to look at threads again.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "event.h"
#include "rank_trace.h"

namespace cpath {

constexpr uint32_t kNoEvent = ~0u;

// The value paired with `key` (an event or op index) in pairs sorted by it, or `none`: the side
// tables of the few events or ops that have a value.
template <class T>
T paired_with(const std::vector<std::pair<uint32_t, T>>& pairs, uint32_t key, T none) {
  auto it = std::lower_bound(pairs.begin(), pairs.end(), key, [](const std::pair<uint32_t, T>& p, uint32_t v) { return p.first < v; });
  return it != pairs.end() && it->first == key ? it->second : none;
}

// What the analysis reads of a call from the replay to the reports (Event's fields of the same
// names): 28 bytes instead of the decoded record's 120, for the whole analysis. What few calls
// carry (Sendrecv's second peer and tag, a collective's root, the Test family's polled
// requests) and the slot (the thread), where a rank has several, are kept beside the events,
// in Timeline.
struct EventCore {
  // The call site and the size are read through Timeline::callsite() / bytes(): a site is an
  // index into Timeline::sites (a loop's calls come from a few dozen sites), a size of 4 GiB
  // or more is kBigBytes here and kept in Timeline::big_bytes. 8 bytes per event of every
  // phase's peak.
  uint32_t site = 0;
  uint32_t bytes_lo = 0;
  int32_t peer = -1, tag = -1;
  uint32_t list_begin = 0, list_count = 0;  // Timeline::completions or Timeline::reqlists
  uint16_t call = 0;
  uint8_t flags = 0;
  uint8_t flag = 0;
};

// The rest of a decoded record: request, window and file handles, the Pcontrol level and the
// created communicator, read while the requests are tracked (build_ops) and then released
// (Timeline::release_args). The communicator handle is not kept: TimelineEvent::comm resolved it.
struct EventArgs {
  uint64_t req = 0, req2 = 0, obj = 0;
  int64_t aux = 0;
  int32_t newcomm = 0;
};

// Timeline::args: every event's request handle, and the other arguments only for the events
// that carry one, sorted by event. Most calls of a message-passing loop have a request and
// nothing else: 40 bytes per event were a fifth of the analysis's peak on a halo exchange,
// held while build_ops ran.
class EventArgsTable {
 public:
  void reserve(size_t n) { req_.reserve(n); }
  void push_back(const EventArgs& a) {
    if (a.req2 || a.obj || a.aux || a.newcomm)
      rare_.push_back(Rare{static_cast<uint32_t>(req_.size()), a.newcomm, a.req2, a.obj, a.aux});
    req_.push_back(a.req);
  }
  size_t size() const { return req_.size(); }
  uint64_t req(uint32_t ev) const { return ev < req_.size() ? req_[ev] : 0; }
  // Event ev's arguments (all zero past the end).
  EventArgs operator[](uint32_t ev) const {
    EventArgs a;
    if (ev >= req_.size()) return a;
    a.req = req_[ev];
    if (rare_.empty()) return a;
    auto it = std::lower_bound(rare_.begin(), rare_.end(), ev, [](const Rare& r, uint32_t v) { return r.event < v; });
    if (it != rare_.end() && it->event == ev) {
      a.req2 = it->req2;
      a.obj = it->obj;
      a.aux = it->aux;
      a.newcomm = it->newcomm;
    }
    return a;
  }
  void release() {
    std::vector<uint64_t>().swap(req_);
    std::vector<Rare>().swap(rare_);
  }

 private:
  struct Rare {
    uint32_t event;
    int32_t newcomm;
    uint64_t req2, obj;
    int64_t aux;
  };
  std::vector<uint64_t> req_;
  std::vector<Rare> rare_;
};

constexpr uint32_t kBigBytes = ~0u;

struct TimelineEvent {
  int64_t begin = 0;  // aligned ns
  int64_t end = 0;
  int32_t comm = -1;  // communicator record index (-1: unknown or none)
  EventCore e;
};
// 48 bytes per event: the walks, the what-if and the wait states stream over the timeline,
// once per scenario. The slot and the root were 8 more of every phase's peak from the
// timeline to the what-if (Timeline::slot(), Timeline::root()).
static_assert(sizeof(TimelineEvent) == 48, "48 bytes per event");

// The second peer and tag of a call that has them (Sendrecv: the receive's source and tag).
struct SecondPeer {
  uint32_t event = 0;
  int32_t peer = -1, tag = -1;
};
// The requests a Test-family call polled: DecodedThread::polls of its thread from `begin`.
struct PollList {
  uint32_t event = 0;
  uint32_t begin = 0, count = 0;
};

// Collectives made while recording was off, counted on one communicator (or window/file):
// they advance that communicator's sequence numbers before timeline event `before`.
struct TimelineGap {
  uint32_t before = 0;
  int32_t comm = -1;  // record, or -1 (then `obj`, or an unknown communicator)
  uint64_t obj = 0;
  uint64_t count = 0;
};

// Rule 1's predecessors. With one recording thread (nearly every rank) the predecessor of
// event i is i - 1 and nothing is stored (4 bytes per event of every phase's peak); with
// several, a table.
class PrevTable {
 public:
  uint32_t operator[](uint32_t i) const { return table_.empty() ? (i ? i - 1 : kNoEvent) : table_[i]; }
  // Builds the table (n events, all kNoEvent) unless `implicit`; then set() must agree with it.
  void reset(size_t n, bool implicit) {
    table_.clear();
    table_.shrink_to_fit();
    if (!implicit) table_.assign(n, kNoEvent);
  }
  void set(uint32_t i, uint32_t p) {
    if (!table_.empty()) table_[i] = p;
  }

 private:
  std::vector<uint32_t> table_;
};

// Gaps before a poll shorter than this count as wall time, longer ones at most as the CPU time
// read around them (compute_before).
constexpr int64_t kCpuGapNs = 1000000;
// ... and only when the thread ran less than this across the gap (a polling loop's chunk, the
// thread descheduled); more is work of its own, counted as wall time.
constexpr int64_t kCpuWorkNs = 10000000;

struct Timeline {
  int rank = 0;
  int size = 1;
  std::vector<TimelineEvent> ev;
  std::vector<uint64_t> sites{0};  // EventCore::site -> return address (0: none)
  std::vector<std::pair<uint32_t, uint64_t>> big_bytes;  // (event, size) where bytes_lo is kBigBytes, by event
  std::vector<Completion> completions;  // TimelineEvent::e.list_* point here
  std::vector<uint64_t> reqlists;
  // Rule 1: the event whose end the begin of event i leads to, or kNoEvent (start-up).
  PrevTable prev;
  // The thread's time outside MPI before event i began (summed from its first event): the
  // compute between two events of one thread is a difference of two entries.
  std::vector<int64_t> compute_before;
  // Per slot, by event: the thread's time outside MPI before the event that it spent off the
  // CPU, summed (a gap of kCpuGapNs or more before a poll, less the CPU time the thread's clock
  // showed across it; timeline.cpp). Few entries: only where a polling thread was descheduled.
  std::vector<std::vector<std::pair<uint32_t, int64_t>>> idle;
  std::vector<TimelineGap> gaps;  // by `before`
  std::vector<SecondPeer> second;   // by event
  std::vector<PollList> poll_lists;  // by event
  // Merged polls (docs/trace-format.md): (event, calls merged into it), by event. Only the
  // counts of calls read it; the event's times already span the run.
  std::vector<std::pair<uint32_t, uint32_t>> repeats;
  std::vector<uint32_t> slot_thread;  // per slot: the recording thread's id (Event::thread)
  // Per event, the index of its recording thread in RankTrace::threads; empty when the rank
  // recorded one thread (nearly every rank), whose slot is 0.
  std::vector<uint32_t> slots;
  // (event, root as recorded) of every call that names a root, by event.
  std::vector<std::pair<uint32_t, int32_t>> roots;
  EventArgsTable args;  // per event, until release_args()
  // Kept past release_args, few: the communicator record each creating call made (event,
  // newcomm as in Event) and the level of every call that carries one (MPI_Pcontrol...).
  std::vector<std::pair<uint32_t, int32_t>> newcomms;
  std::vector<std::pair<uint32_t, int64_t>> aux;
  // Only when the trace has user-region marks: each event's begin and end as first aligned
  // (before any clock repair), which the marks are placed against.
  std::vector<std::pair<int64_t, int64_t>> aligned;
  // Recorded ticks (begin, end) of the first MPI_Init* and the last MPI_Finalize: the start-up
  // report measures them on the rank's own clock.
  std::pair<uint64_t, uint64_t> init_ticks{0, 0}, finalize_ticks{0, 0};
  uint32_t threads = 0;           // threads that recorded at least one call
  // First calls of threads whose creator made MPI calls between the thread's birth and that
  // call (rule 1): the thread may have waited for one of them outside MPI.
  uint32_t thread_starts_unknown = 0;
  uint32_t init_slot = 0;         // thread that called MPI_Init
  const RankTrace* trace = nullptr;

  uint32_t slot(uint32_t i) const { return slots.empty() ? 0 : slots[i]; }
  // The root call i names (Event::root), or -1.
  int32_t root(uint32_t i) const { return paired_with(roots, i, -1); }

  const CommTable& comms() const { return trace->comm_table; }
  // Job-wide key of the communicator record, or 0 when unknown.
  uint64_t comm_key(int32_t rec) const {
    return rec >= 0 && static_cast<size_t>(rec) < trace->comm_table.key.size() ? trace->comm_table.key[static_cast<size_t>(rec)] : 0;
  }
  int32_t world_rank(int32_t rec, int32_t local) const {
    return rec < 0 ? -1 : trace->comm_table.world_rank(static_cast<size_t>(rec), local);
  }
  // World rank of a point-to-point partner (an intercommunicator's remote group), or -1.
  int32_t peer_world_rank(int32_t rec, int32_t peer) const {
    return rec < 0 ? -1 : trace->comm_table.peer_world_rank(static_cast<size_t>(rec), peer);
  }
  int32_t my_local_rank(int32_t rec) const {
    return rec >= 0 && static_cast<size_t>(rec) < trace->comms.size() ? trace->comms[static_cast<size_t>(rec)].local_rank : -1;
  }
  // Requests polled by event i (Test family), in the recording thread's poll store. A polling
  // loop's calls share one stored list: the pointer tells whether two calls polled the same.
  const uint64_t* polls(uint32_t i, uint32_t* n) const {
    auto it = std::lower_bound(poll_lists.begin(), poll_lists.end(), i, [](const PollList& p, uint32_t v) { return p.event < v; });
    *n = 0;
    if (it == poll_lists.end() || it->event != i || !it->count) return nullptr;
    *n = it->count;
    return trace->threads[slot(i)].polls.data() + it->begin;
  }
  // Sendrecv's receive side: its source and tag as recorded (-1 when the call has none).
  SecondPeer second_peer(uint32_t i) const {
    auto it = std::lower_bound(second.begin(), second.end(), i, [](const SecondPeer& p, uint32_t v) { return p.event < v; });
    return it != second.end() && it->event == i ? *it : SecondPeer{i, -1, -1};
  }
  // The calls event i stands for: 1, or more for an unsuccessful poll others were merged into.
  uint64_t calls(uint32_t i) const {
    return repeats.empty() ? 1 : 1ull + paired_with(repeats, i, 0u);
  }
  // The return address call i was made from (Event::callsite).
  uint64_t callsite(uint32_t i) const { return sites[ev[i].e.site]; }
  // Call i's size in bytes as recorded (Event::bytes).
  uint64_t bytes(uint32_t i) const {
    const uint32_t b = ev[i].e.bytes_lo;
    return b != kBigBytes ? b : paired_with(big_bytes, i, uint64_t{b});
  }
  // The id of the thread that made call i (Event::thread).
  uint32_t thread_of(uint32_t i) const {
    const uint32_t s = slot(i);
    return s < slot_thread.size() ? slot_thread[s] : s;
  }
  // Compute time of the thread of events a and b (a before b) between a's end and b's begin.
  int64_t compute_between(uint32_t a, uint32_t b) const { return compute_before[b] - compute_before[a]; }
  // The thread's time outside MPI before event i that it spent off the CPU (idle).
  int64_t idle_before(uint32_t i) const {
    const uint32_t s = slot(i);
    if (s >= idle.size()) return 0;
    const auto& v = idle[s];
    auto it = std::upper_bound(v.begin(), v.end(), i, [](uint32_t x, const std::pair<uint32_t, int64_t>& e) { return x < e.first; });
    return it == v.begin() ? 0 : std::prev(it)->second;
  }
  // Rule 5's computation of the thread between events a and b (a before b): its time outside
  // MPI less what it spent descheduled before polls.
  int64_t work_between(uint32_t a, uint32_t b) const {
    return compute_between(a, b) - (idle.empty() ? 0 : idle_before(b) - idle_before(a));
  }
  void release_args() { args.release(); }
  // After build_ops, which reads every list: only the Test family's completion lists are read
  // again (a poll that completed its request is no poll, rule 5); the other lists (24 bytes
  // per completed request, 19 per event on a halo exchange) and the request lists go. The
  // other calls' list_begin is then meaningless (list_count stays).
  void keep_poll_lists_only();
};

Timeline build_timeline(const RankTrace& t);
// The same, for a caller that never reads t's decoded events and completion lists again: their
// pages are given back as they are copied (they then read as zeros; free them afterwards).
Timeline build_timeline_releasing(RankTrace& t);

}  // namespace cpath
