// Point-to-point matching as MPI does it: messages with the same (communicator, source,
// destination, tag) are received in the order they were sent (non-overtaking), and receives
// take messages in the order they were posted. So the k-th send on a channel matches the k-th
// receive on it, once wildcard receives carry their actual source and tag. This file numbers
// each rank's sends and receives per channel; p2p_replay.h and the sequential reference pair
// them up.
#pragma once
#include <cstdint>
#include <vector>

#include "ops.h"
#include "sorted_runs.h"
#include "timeline.h"

namespace cpath {

struct ChannelKey {
  uint64_t comm = 0;  // job-wide communicator key
  int32_t src = 0;    // communicator-local ranks
  int32_t dst = 0;
  int32_t tag = 0;
  bool operator==(const ChannelKey& o) const {
    return comm == o.comm && src == o.src && dst == o.dst && tag == o.tag;
  }
};

struct ChannelKeyHash {
  size_t operator()(const ChannelKey& k) const {
    uint64_t h = k.comm * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.src)) << 32 | static_cast<uint32_t>(k.dst)) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(k.tag)) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 33));
  }
};

// The channels' order, which the numbering's channel indices and the replay's merge of sends
// with receives share: communicator key, then source, destination, tag. <0, 0 or >0.
inline int compare_keys(const ChannelKey& a, const ChannelKey& b) {
  if (a.comm != b.comm) return a.comm < b.comm ? -1 : 1;
  if (a.src != b.src) return a.src < b.src ? -1 : 1;
  if (a.dst != b.dst) return a.dst < b.dst ? -1 : 1;
  if (a.tag != b.tag) return a.tag < b.tag ? -1 : 1;
  return 0;
}

// 20 bytes per point-to-point op (the channel's 24-byte key once per channel, not per op):
// the numbering is alive through the replay's exchange, the analysis's peak.
struct NumberedOp {
  uint32_t op = 0;
  uint32_t ch = 0;        // its channel: index into NumberedOps::channels (key order)
  uint32_t seq : 31;      // position on the channel (a channel of 2^31 messages would need a 32 GiB trace)
  bool peek : 1;          // Probe/Iprobe: sees message `seq`, does not consume it
  int32_t peer_world = -1;
  NumberedOp() : seq(0), peek(false) {}
};
// 16 bytes: the replay holds one per point-to-point op of the rank at its peak.
static_assert(sizeof(NumberedOp) == 16, "16 bytes per numbered op");

struct NumberedOps {
  std::vector<NumberedOp> sends;
  std::vector<NumberedOp> recvs;  // receives and peeks
  // The distinct channels, sorted by (comm, src, dst, tag): comparing two ops' `ch` compares
  // their keys.
  std::vector<ChannelKey> channels;
  const ChannelKey& key(const NumberedOp& n) const { return channels[n.ch]; }
  // Not numbered: MPI_PROC_NULL and cancelled ops (which match nothing, exactly), and ops on
  // unknown communicators or intercommunicators whose groups are not both known (counted
  // once, by build_ops).
  uint64_t skipped = 0;
  // Sends and receives posted on one channel by several threads at overlapping times, whose
  // order MPI decided inside the calls and the trace cannot tell (docs/pag-rules.md rule 6,
  // threads): the cause thread_channel_order.
  uint64_t thread_races = 0;
};

// Numbers every channel's sends and receives in posting order, except receives that threads
// posted at overlapping times (rule 6, threads), which take the channel's messages in the order
// they completed.
NumberedOps number_channels(const Timeline& tl, const OpTable& ops);

// Indices of `v` (NumberedOps::sends or recvs) in (channel, sequence number, index) order,
// which is the order of (key, seq): a stable counting sort by channel, because number_channels
// numbers each channel's ops in the order they stand in `v` (O(n + channels), where sorting
// the replay's receives and sends by comparison was a tenth of the whole analysis's
// instructions on a halo exchange).
inline std::vector<uint32_t> order_by_channel(const std::vector<NumberedOp>& v, size_t channels) {
  return bucket_order(v.size(), channels, [&](size_t i) { return static_cast<size_t>(v[i].ch); });
}

}  // namespace cpath
