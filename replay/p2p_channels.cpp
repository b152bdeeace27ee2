#include "p2p_channels.h"

#include <algorithm>
#include <unordered_map>

#include "map_cache.h"

namespace cpath {

NumberedOps number_channels(const Timeline& tl, const OpTable& ops) {
  NumberedOps out;
  std::unordered_map<ChannelKey, uint32_t, ChannelKeyHash> id_of;  // channel -> its first-seen id
  std::vector<uint32_t> send_seq, recv_seq;                          // by id
  // A program cycles through a few channels: the map's lookups were most of the numbering's
  // time on a halo exchange.
  MapCache<std::unordered_map<ChannelKey, uint32_t, ChannelKeyHash>> cache;
  auto channel = [&](const ChannelKey& k) {
    if (const uint32_t* id = cache.find(k)) return *id;
    auto [it, fresh] = id_of.emplace(k, static_cast<uint32_t>(out.channels.size()));
    cache.put(k, &it->second);
    if (fresh) {
      out.channels.push_back(k);
      send_seq.push_back(0);
      recv_seq.push_back(0);
    }
    return it->second;
  };
  const auto& comms = tl.trace->comms;
  // Sized once from a count: grown by doubling, each copy left its old block behind in a heap
  // that no longer returns memory after the decoded trace was freed (~4 MB per 50k events).
  size_t sends = 0, recvs = 0;
  for (const Op& o : ops.ops) {
    sends += o.kind == OpKind::Send;
    recvs += o.kind == OpKind::Recv || o.kind == OpKind::Peek;
  }
  out.sends.reserve(sends);
  out.recvs.reserve(recvs);
  for (uint32_t i = 0; i < ops.ops.size(); ++i) {
    const Op& o = ops.ops[i];
    if (o.kind != OpKind::Send && o.kind != OpKind::Recv && o.kind != OpKind::Peek) continue;
    // Intercommunicators: the peer is a rank of the remote group, known when both groups are
    // in this job (its channel is keyed like any other: the sender's and the receiver's local
    // ranks in their own groups).
    // The predicate build_ops counts by: both groups of an intercommunicator known.
    const bool usable = o.comm >= 0 && static_cast<size_t>(o.comm) < comms.size() && o.peer >= 0 && !o.cancelled &&
                        tl.trace->comm_table.peers_known(static_cast<size_t>(o.comm));
    const int32_t peer_world = usable ? tl.peer_world_rank(o.comm, o.peer) : -1;
    if (!usable || peer_world < 0) {
      ++out.skipped;
      continue;
    }
    NumberedOp n;
    n.op = i;
    n.peer_world = peer_world;
    const int32_t me = tl.my_local_rank(o.comm);
    ChannelKey k;
    k.comm = tl.comm_key(o.comm);
    k.tag = o.tag;
    if (o.kind == OpKind::Send) {
      k.src = me;
      k.dst = o.peer;
      n.ch = channel(k);
      n.seq = send_seq[n.ch]++;
      out.sends.push_back(n);
    } else {
      k.src = o.peer;
      k.dst = me;
      n.ch = channel(k);
      if (o.kind == OpKind::Peek) {
        n.peek = true;
        n.seq = recv_seq[n.ch];
      } else {
        n.seq = recv_seq[n.ch]++;
      }
      out.recvs.push_back(n);
    }
  }
  // Ids in key order, so that the replay sorts receives by id as the senders' records by key.
  std::vector<uint32_t> by_key(out.channels.size()), rank_of(out.channels.size());
  for (uint32_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(),
            [&](uint32_t a, uint32_t b) { return compare_keys(out.channels[a], out.channels[b]) < 0; });
  std::vector<ChannelKey> sorted(out.channels.size());
  for (uint32_t r = 0; r < by_key.size(); ++r) {
    rank_of[by_key[r]] = r;
    sorted[r] = out.channels[by_key[r]];
  }
  out.channels.swap(sorted);
  for (NumberedOp& n : out.sends) n.ch = rank_of[n.ch];
  for (NumberedOp& n : out.recvs) n.ch = rank_of[n.ch];
  return out;
}

}  // namespace cpath
