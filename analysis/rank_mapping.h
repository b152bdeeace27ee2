// Maps ranks onto nodes of given capacities so that the heavy talkers share a node: Scotch's
// static mapping onto a weighted complete graph (docs/communication.md says why Scotch), then
// a repair pass that enforces the capacities exactly. Without Scotch at build time, a greedy
// mapper fills one node at a time with the ranks most connected to it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "communication_report.h"

namespace cpath {

// Undirected communication graph in compressed rows; weights are bytes in both directions.
struct TrafficGraph {
  int32_t n = 0;
  std::vector<uint64_t> begin;  // n + 1 offsets
  std::vector<int32_t> adj;
  std::vector<uint64_t> weight;
};

// Self-messages are dropped; (a, b) and (b, a) are merged.
TrafficGraph traffic_graph(const std::vector<P2PPair>& pairs, int32_t n);

// Point-to-point bytes between ranks on different nodes.
uint64_t internode_bytes(const std::vector<P2PPair>& pairs, const std::vector<int32_t>& node);

// Node index per rank, with node k holding exactly capacity[k] ranks (sum must be g.n).
// `mapper` says which mapper produced it ("scotch" or "greedy"); `use_scotch` = false forces
// the greedy one (tests).
std::vector<int32_t> map_ranks(const TrafficGraph& g, const std::vector<int32_t>& capacity, std::string* mapper,
                               bool use_scotch = true);

}  // namespace cpath
