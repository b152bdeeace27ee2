// Hand-built rank traces for the replay's unit tests: events are written as the decoder would
// produce them (times in ns, the clock models are identities), so build_timeline and
// build_ops run on them unchanged.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "call_info.h"
#include "comm_unification.h"
#include "ops.h"
#include "rank_trace.h"
#include "timeline.h"

namespace cpath_test {

using namespace cpath;

constexpr uint64_t kWorld = 0x1000;  // MPI_COMM_WORLD's handle in these traces

class TraceBuilder {
 public:
  TraceBuilder(int rank, int size, const std::string& host = "h0") {
    t.rank = rank;
    t.size = size;
    t.meta = {{"rank", std::to_string(rank)}, {"size", std::to_string(size)}, {"host", host},
              {"eager_limit_intra", "4096"}, {"eager_limit_inter", "65536"}, {"eager_limit_source", "test"}};
    CommRecord w;
    w.handle = kWorld;
    w.local_rank = rank;
    w.size = size;
    w.flags = kCommWorld | kCommWorldGroup;
    t.comms.push_back(w);
    std::vector<int32_t> all;
    for (int i = 0; i < size; ++i) all.push_back(i);
    t.comm_table.world_size = size;
    t.comm_table.groups = {all};
    t.comm_table.key = {kWorldCommKey};
    t.comm_table.group = {0};
    t.comm_table.remote_group = {CommTable::kNotInter};
  }

  // A communicator record; `members` are world ranks in local-rank order (empty: unknown
  // group). Returns its record index.
  int comm(uint64_t handle, uint64_t key, std::vector<int32_t> members, uint32_t flags = 0, uint64_t created = 0) {
    CommRecord c;
    c.handle = handle;
    c.created_tick = created;
    c.flags = flags;
    c.size = members.empty() ? 2 : static_cast<int32_t>(members.size());
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == t.rank) c.local_rank = static_cast<int32_t>(i);
    t.comms.push_back(c);
    t.comm_table.key.push_back(key);
    t.comm_table.group.push_back(members.empty() ? -1 : intern_group(&t.comm_table, members));
    t.comm_table.remote_group.push_back((flags & kCommInter) ? -1 : CommTable::kNotInter);
    return static_cast<int>(t.comms.size() - 1);
  }

  // Appends a call on thread `th` and returns it for the caller to fill in.
  Event& call(unsigned id, int64_t begin, int64_t end, uint32_t th = 0) {
    while (t.threads.size() <= th) t.threads.emplace_back();
    Event e;
    e.call = static_cast<uint16_t>(id);
    e.t_begin = static_cast<uint64_t>(begin);
    e.t_end = static_cast<uint64_t>(end);
    e.thread = th;
    e.comm = kWorld;
    t.threads[th].events.push_back(e);
    return t.threads[th].events.back();
  }
  Event& p2p(unsigned id, int64_t b, int64_t e, int peer, int tag, uint64_t bytes = 8, uint64_t req = 0,
             uint32_t th = 0) {
    Event& ev = call(id, b, e, th);
    ev.peer = peer;
    ev.tag = tag;
    ev.bytes = bytes;
    ev.req = req;
    return ev;
  }
  // A completion call (Wait, Test, ...) completing `done`, having polled `polled` (Test family).
  Event& complete(unsigned id, int64_t b, int64_t e, std::vector<Completion> done, std::vector<uint64_t> polled = {},
                  uint32_t th = 0) {
    Event& ev = call(id, b, e, th);
    DecodedThread& d = t.threads[th];
    ev.list_begin = static_cast<uint32_t>(d.completions.size());
    ev.list_count = static_cast<uint32_t>(done.size());
    d.completions.insert(d.completions.end(), done.begin(), done.end());
    if (call_info(id).fields & kField_polls) {
      ev.poll_begin = static_cast<uint32_t>(d.polls.size());
      ev.poll_count = static_cast<uint32_t>(polled.size());
      d.polls.insert(d.polls.end(), polled.begin(), polled.end());
    }
    return ev;
  }
  static Completion done(uint64_t req, int src = 0, int tag = 0) { return Completion{req, src, tag, false}; }
  void gap(int32_t rec, uint64_t count, int64_t at, uint32_t th = 0) {
    while (t.threads.size() <= th) t.threads.emplace_back();
    GapRecord g;
    g.before = static_cast<uint32_t>(t.threads[th].events.size());
    g.t = static_cast<uint64_t>(at);
    g.comm = rec;
    g.count = count;
    t.threads[th].gaps.push_back(g);
  }
  void init(int64_t b, int64_t e) { call(kCall_MPI_Init, b, e); }
  void finalize(int64_t b) { call(kCall_MPI_Finalize, b, b); }

  RankTrace t;
};

// A timeline and its ops, kept together (the timeline points into the trace).
struct Model {
  explicit Model(TraceBuilder&& b) : trace(std::move(b.t)), tl(build_timeline(trace)), ops(build_ops(tl)) {}
  Model(const Model&) = delete;
  RankTrace trace;
  Timeline tl;
  OpTable ops;
  // The timeline index of the n-th event of call `id` (0-based).
  uint32_t ev(unsigned id, int n = 0) const {
    for (uint32_t i = 0; i < tl.ev.size(); ++i)
      if (tl.ev[i].e.call == id && n-- == 0) return i;
    return kNoEvent;
  }
  // The op posted by timeline event i (the first one).
  uint32_t op_posted_by(uint32_t i) const {
    for (uint32_t k = 0; k < ops.ops.size(); ++k)
      if (ops.ops[k].post == i) return k;
    return kNoEvent;
  }
};

}  // namespace cpath_test
