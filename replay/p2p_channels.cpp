#include "p2p_channels.h"

#include <unordered_map>

namespace cpath {

NumberedOps number_channels(const Timeline& tl, const OpTable& ops) {
  NumberedOps out;
  std::unordered_map<ChannelKey, uint32_t, ChannelKeyHash> send_seq, recv_seq;
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
    n.ch.comm = tl.comm_key(o.comm);
    n.ch.tag = o.tag;
    if (o.kind == OpKind::Send) {
      n.ch.src = me;
      n.ch.dst = o.peer;
      n.seq = send_seq[n.ch]++;
      out.sends.push_back(n);
    } else {
      n.ch.src = o.peer;
      n.ch.dst = me;
      if (o.kind == OpKind::Peek) {
        n.peek = true;
        n.seq = recv_seq[n.ch];
      } else {
        n.seq = recv_seq[n.ch]++;
      }
      out.recvs.push_back(n);
    }
  }
  return out;
}

}  // namespace cpath
