#include "placement.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "byte_io.h"
#include "call_info.h"
#include "comm_name.h"
#include "rank_mapping.h"
#include "tree_reduce.h"

namespace cpath {

namespace {

// Rank 0 receives every rank's byte buffer, in rank order (a few bytes each).
std::vector<std::vector<uint8_t>> gather_bytes(const std::vector<uint8_t>& mine, MPI_Comm comm) {
  std::vector<std::vector<uint8_t>> out;
  gather_bytes_to_root(mine, comm, [&](int, const uint8_t* data, size_t size) { out.emplace_back(data, data + size); });
  return out;
}

const char* topology_kind(unsigned call) {
  const std::string name = call_info(call).name;
  if (name == "MPI_Cart_create") return "cartesian";
  if (name == "MPI_Graph_create") return "graph";
  if (name == "MPI_Dist_graph_create" || name == "MPI_Dist_graph_create_adjacent") return "dist_graph";
  return nullptr;
}

// Topology communicators this rank defined (it is their local rank 0), with the number of
// positions where their rank order differs from the parent's.
std::vector<uint8_t> local_topologies(const Timeline& tl) {
  const RankTrace& t = *tl.trace;
  const CommTable& ct = t.comm_table;
  // The call that created each record: the event whose newcomm names it.
  std::vector<unsigned> creator(t.comms.size(), 0);
  for (const auto& [ev, newcomm] : tl.newcomms)  // newcomm > 0: the timeline keeps no MPI_COMM_NULL
    if (static_cast<size_t>(newcomm) <= creator.size())
      creator[static_cast<size_t>(newcomm) - 1] = tl.ev[ev].e.call;
  ByteWriter w;
  for (size_t i = 0; i < t.comms.size() && i < ct.group.size(); ++i) {
    const CommRecord& c = t.comms[i];
    const char* kind = topology_kind(creator[i]);
    if (!kind || c.local_rank != 0 || ct.group[i] < 0 || c.parent < 0 || ct.group[static_cast<size_t>(c.parent)] < 0)
      continue;
    const auto& mine = ct.groups[static_cast<size_t>(ct.group[i])];
    const auto& parent = ct.groups[static_cast<size_t>(ct.group[static_cast<size_t>(c.parent)])];
    int32_t moved = 0;
    for (size_t k = 0; k < mine.size(); ++k) moved += k >= parent.size() || mine[k] != parent[k];
    w.put_string(comm_name(t, static_cast<int32_t>(i)));
    w.put_string(kind);
    w.put<int32_t>(static_cast<int32_t>(mine.size()));
    w.put<int32_t>(moved);
  }
  return std::move(w.bytes());
}

// Renames the suggested parts so that each keeps as many of its node's current ranks as
// possible (among nodes of equal capacity): the rankfile then moves few ranks.
void relabel(const std::vector<int32_t>& current, const std::vector<int32_t>& capacity, std::vector<int32_t>* part) {
  const size_t k = capacity.size();
  std::map<std::pair<int32_t, int32_t>, int64_t> overlap;
  for (size_t r = 0; r < current.size(); ++r)
    if (capacity[static_cast<size_t>((*part)[r])] == capacity[static_cast<size_t>(current[r])]) ++overlap[{(*part)[r], current[r]}];
  std::vector<std::tuple<int64_t, int32_t, int32_t>> cand;
  for (const auto& [pq, n] : overlap) cand.emplace_back(-n, pq.first, pq.second);
  std::sort(cand.begin(), cand.end());
  std::vector<int32_t> to(k, -1);
  std::vector<bool> taken(k, false);
  for (const auto& [neg, p, q] : cand) {
    if (to[static_cast<size_t>(p)] >= 0 || taken[static_cast<size_t>(q)]) continue;
    to[static_cast<size_t>(p)] = q;
    taken[static_cast<size_t>(q)] = true;
  }
  for (size_t p = 0; p < k; ++p) {
    if (to[p] >= 0) continue;
    for (size_t q = 0; q < k; ++q)
      if (!taken[q] && capacity[q] == capacity[p]) {
        to[p] = static_cast<int32_t>(q);
        taken[q] = true;
        break;
      }
    if (to[p] < 0) return;  // cannot happen: capacities are a multiset matched to itself
  }
  for (int32_t& x : *part) x = to[static_cast<size_t>(x)];
}

}  // namespace

PlacementReport analyse_placement(const Timeline& tl, const CommunicationReport& comm_rep, int ranks_per_node,
                                  MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int len = 0;
  if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS || len <= 0) std::strcpy(name, "unknown");
  std::vector<std::vector<uint8_t>> names = gather_bytes(std::vector<uint8_t>(name, name + std::strlen(name)), comm);
  std::vector<std::vector<uint8_t>> topo = gather_bytes(local_topologies(tl), comm);
  PlacementReport r;
  if (me != 0) return r;
  r.present = true;
  r.ranks_per_node = ranks_per_node;
  for (const auto& n : names) r.hosts.emplace_back(n.begin(), n.end());
  for (const auto& b : topo) {
    ByteReader in(b.data(), b.size());
    while (in.left() > 0) {
      TopologyInfo ti;
      if (!in.get_string(ti.comm) || !in.get_string(ti.kind) || !in.get(ti.size) || !in.get(ti.moved)) break;
      r.topologies.push_back(ti);
    }
  }

  // Nodes of the current mapping and their capacities.
  std::vector<int32_t> capacity;
  if (ranks_per_node > 0) {
    for (int first = 0; first < np; first += ranks_per_node) {
      r.node_names.push_back("node" + std::to_string(r.node_names.size()));
      capacity.push_back(std::min(ranks_per_node, np - first));
    }
    for (int k = 0; k < np; ++k) r.current.push_back(k / ranks_per_node);
  } else {
    std::map<std::string, int32_t> index;
    for (const std::string& h : r.hosts) {
      auto it = index.emplace(h, static_cast<int32_t>(r.node_names.size())).first;
      if (it->second == static_cast<int32_t>(r.node_names.size())) {
        r.node_names.push_back(h);
        capacity.push_back(0);
      }
      ++capacity[static_cast<size_t>(it->second)];
      r.current.push_back(it->second);
    }
  }
  r.p2p_bytes = comm_rep.p2p_bytes;
  r.current_internode_bytes = internode_bytes(comm_rep.pairs, r.current);
  r.suggested = r.current;
  r.suggested_internode_bytes = r.current_internode_bytes;
  r.rankfile = "rankfile";
  r.hostfile = "hosts.hydra";
  if (r.node_names.size() <= 1) {
    r.note = "all ranks share one node: no inter-node traffic to reduce";
    return r;
  }
  if (comm_rep.pairs.empty()) {
    r.note = "no point-to-point traffic between ranks: nothing to place by";
    return r;
  }
  std::vector<int32_t> part;
  try {  // rank 0 alone: an exception here must not leave the others waiting
    part = map_ranks(traffic_graph(comm_rep.pairs, np), capacity, &r.mapper);
    relabel(r.current, capacity, &part);
  } catch (const std::exception&) {
    r.note = "no suggestion: rank 0 ran out of memory mapping the ranks";
    return r;
  }
  const uint64_t suggested = internode_bytes(comm_rep.pairs, part);
  if (suggested < r.current_internode_bytes) {
    r.suggested = part;
    r.suggested_internode_bytes = suggested;
    r.note = "suggested by " + r.mapper + " from the point-to-point matrix";
  } else {
    r.note = "the current mapping is already as good as " + r.mapper + "'s";
  }
  return r;
}

}  // namespace cpath
