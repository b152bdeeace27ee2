#include "p2p_channels.h"

#include <algorithm>
#include <unordered_map>

#include "map_cache.h"

namespace cpath {

namespace {

// Rule 6, several threads on one channel. Ops of one channel whose posting calls overlap in
// time, made by different threads, were queued by MPI in an order the trace does not record:
// it happened inside the calls. `v` holds one side of the channels in posting order, numbered
// so. Each cluster (ops chained by overlap with an earlier member) that holds two threads or
// more (one thread's ops overlap only when one MPI_Startall posted them) is counted;
// receives in it are renumbered in the order they completed, each thread's own kept in posting
// order. That order never pairs a blocking receive with a message sent after the receive
// ended (on one clock: the k-th receive to complete had k messages sent before its end),
// which posting order does whenever a thread stamped its begin first but queued its receive
// second (OSU's osu_latency_mt: thousands of clock-condition violations on one host). Sends
// keep posting order (by begin: the same guarantee from their side).
uint64_t settle_thread_races(const Timeline& tl, const OpTable& ops, std::vector<NumberedOp>* v, size_t channels,
                             bool receives) {
  if (tl.threads < 2) return 0;
  uint64_t raced = 0;
  std::vector<uint32_t> cl, order, byslot;
  std::vector<std::pair<size_t, size_t>> runs;
  std::vector<NumberedOp> moved;
  auto done_end = [&](const NumberedOp& n) {
    const uint32_t d = ops.ops[n.op].done;
    return d == kNoEvent ? INT64_MAX : tl.ev[d].end;
  };
  auto slot_of = [&](uint32_t x) { return tl.slot(ops.ops[(*v)[x].op].post); };
  auto flush = [&]() {
    if (cl.size() < 2) return;
    // One thread's ops overlap only when one call posted them (MPI_Startall): no race.
    const uint32_t first = slot_of(cl[0]);
    if (std::all_of(cl.begin() + 1, cl.end(), [&](uint32_t x) { return slot_of(x) == first; })) return;
    raced += cl.size();
    if (!receives) return;
    // Merge the threads' runs (each in posting order), the earliest-completing head first,
    // ties to the earlier post. O(cluster x threads): a cluster can be a whole run of one
    // thread's receives beside another thread's single long one.
    byslot = cl;
    std::stable_sort(byslot.begin(), byslot.end(), [&](uint32_t a, uint32_t b) { return slot_of(a) < slot_of(b); });
    runs.clear();  // [next, end) of each thread's run in byslot
    for (size_t j = 0; j < byslot.size(); ++j)
      if (j == 0 || slot_of(byslot[j]) != slot_of(byslot[j - 1])) runs.push_back({j, j});
    for (size_t r = 0; r < runs.size(); ++r) runs[r].second = r + 1 < runs.size() ? runs[r + 1].first : byslot.size();
    auto earlier = [&](uint32_t a, uint32_t b) {
      const int64_t ea = done_end((*v)[a]), eb = done_end((*v)[b]);
      return ea < eb || (ea == eb && a < b);
    };
    order.clear();
    while (order.size() < cl.size()) {
      size_t best = runs.size();
      for (size_t r = 0; r < runs.size(); ++r)
        if (runs[r].first < runs[r].second &&
            (best == runs.size() || earlier(byslot[runs[r].first], byslot[runs[best].first])))
          best = r;
      order.push_back(byslot[runs[best].first++]);
    }
    moved.clear();
    for (uint32_t x : order) moved.push_back((*v)[x]);
    for (size_t j = 0; j < cl.size(); ++j) {
      const uint32_t seq = (*v)[cl[j]].seq;  // the positions' numbers, ascending
      (*v)[cl[j]] = moved[j];
      (*v)[cl[j]].seq = seq;
    }
  };
  const std::vector<uint32_t> by_ch = order_by_channel(*v, channels);
  int64_t cluster_end = 0;
  uint32_t cluster_ch = UINT32_MAX;
  for (uint32_t x : by_ch) {
    const NumberedOp& n = (*v)[x];
    if (n.peek) continue;  // a probe sees a message, it is not queued for one
    const uint32_t post = ops.ops[n.op].post;
    if (post == kNoEvent) {  // not placed in time: races with nothing
      flush();
      cl.clear();
      continue;
    }
    const TimelineEvent& p = tl.ev[post];
    if (n.ch == cluster_ch && !cl.empty() && p.begin < cluster_end) {
      cl.push_back(x);
      cluster_end = std::max(cluster_end, p.end);
      continue;
    }
    flush();
    cl.assign(1, x);
    cluster_ch = n.ch;
    cluster_end = p.end;
  }
  flush();
  return raced;
}

}  // namespace

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
  out.thread_races = settle_thread_races(tl, ops, &out.sends, out.channels.size(), false) +
                     settle_thread_races(tl, ops, &out.recvs, out.channels.size(), true);
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
