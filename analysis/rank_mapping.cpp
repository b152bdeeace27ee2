#include "rank_mapping.h"

#include <algorithm>
#include <cstdarg>
#include <queue>
#include <tuple>
#include <utility>

#if CPATH_HAVE_SCOTCH
#include <cstdio>
#include <scotch.h>

// Scotch reports errors through these three functions (normally from libscotcherr, which
// prints on stderr). libcpath defines them itself so that a failed mapping never writes into
// the application's stderr: the caller falls back to the greedy mapper and says so.
extern "C" {
void SCOTCH_errorProg(const char* const) {}
void SCOTCH_errorPrint(const char* const, ...) {}
void SCOTCH_errorPrintW(const char* const, ...) {}
}
#endif

namespace cpath {

TrafficGraph traffic_graph(const std::vector<P2PPair>& pairs, int32_t n) {
  std::vector<std::tuple<int32_t, int32_t, uint64_t>> e;
  e.reserve(pairs.size() * 2);
  for (const P2PPair& p : pairs) {
    if (p.src == p.dst || p.src < 0 || p.dst < 0 || p.src >= n || p.dst >= n || p.bytes == 0) continue;
    e.emplace_back(p.src, p.dst, p.bytes);
    e.emplace_back(p.dst, p.src, p.bytes);
  }
  std::sort(e.begin(), e.end());
  TrafficGraph g;
  g.n = n;
  g.begin.assign(static_cast<size_t>(n) + 1, 0);
  for (size_t i = 0; i < e.size(); ++i) {
    const auto [a, b, w] = e[i];
    if (!g.adj.empty() && i > 0 && std::get<0>(e[i - 1]) == a && std::get<1>(e[i - 1]) == b) {
      g.weight.back() += w;
      continue;
    }
    g.adj.push_back(b);
    g.weight.push_back(w);
    ++g.begin[static_cast<size_t>(a) + 1];
  }
  for (int32_t v = 0; v < n; ++v) g.begin[static_cast<size_t>(v) + 1] += g.begin[static_cast<size_t>(v)];
  return g;
}

uint64_t internode_bytes(const std::vector<P2PPair>& pairs, const std::vector<int32_t>& node) {
  uint64_t sum = 0;
  for (const P2PPair& p : pairs) {
    if (p.src < 0 || p.dst < 0 || static_cast<size_t>(p.src) >= node.size() || static_cast<size_t>(p.dst) >= node.size())
      continue;
    if (node[static_cast<size_t>(p.src)] != node[static_cast<size_t>(p.dst)]) sum += p.bytes;
  }
  return sum;
}

namespace {

// Fills node after node: each starts from the unplaced rank with the most traffic and takes,
// one at a time, the unplaced rank most connected to what the node already holds.
std::vector<int32_t> greedy_map(const TrafficGraph& g, const std::vector<int32_t>& capacity) {
  const size_t n = static_cast<size_t>(g.n);
  std::vector<int32_t> part(n, -1);
  std::vector<uint64_t> total(n, 0), conn(n, 0);
  for (size_t v = 0; v < n; ++v)
    for (uint64_t k = g.begin[v]; k < g.begin[v + 1]; ++k) total[v] += g.weight[k];
  std::vector<int32_t> by_total(n);
  for (size_t v = 0; v < n; ++v) by_total[v] = static_cast<int32_t>(v);
  std::stable_sort(by_total.begin(), by_total.end(), [&](int32_t a, int32_t b) { return total[static_cast<size_t>(a)] > total[static_cast<size_t>(b)]; });
  size_t next_seed = 0;
  for (size_t node = 0; node < capacity.size(); ++node) {
    std::priority_queue<std::pair<uint64_t, int32_t>> heap;  // (connection, -rank): lower rank first on ties
    std::vector<int32_t> touched;
    for (int32_t placed = 0; placed < capacity[node];) {
      int32_t v = -1;
      while (!heap.empty()) {
        const auto [c, neg] = heap.top();
        heap.pop();
        const size_t u = static_cast<size_t>(-neg);
        if (part[u] < 0 && conn[u] == c) {
          v = -neg;
          break;
        }
      }
      if (v < 0) {
        while (next_seed < n && part[static_cast<size_t>(by_total[next_seed])] >= 0) ++next_seed;
        if (next_seed == n) break;
        v = by_total[next_seed];
      }
      part[static_cast<size_t>(v)] = static_cast<int32_t>(node);
      ++placed;
      for (uint64_t k = g.begin[static_cast<size_t>(v)]; k < g.begin[static_cast<size_t>(v) + 1]; ++k) {
        const size_t u = static_cast<size_t>(g.adj[k]);
        if (part[u] >= 0) continue;
        if (conn[u] == 0) touched.push_back(static_cast<int32_t>(u));
        conn[u] += g.weight[k];
        heap.emplace(conn[u], -static_cast<int32_t>(u));
      }
    }
    for (int32_t u : touched) conn[static_cast<size_t>(u)] = 0;
  }
  return part;
}

// Moves ranks out of over-full nodes into nodes with room, each time the move that loses the
// least traffic. False if the partition is too far from the capacities to be worth repairing.
bool enforce_capacity(const TrafficGraph& g, const std::vector<int32_t>& capacity, std::vector<int32_t>* part) {
  const size_t n = static_cast<size_t>(g.n), k = capacity.size();
  std::vector<int32_t> count(k, 0);
  for (int32_t& p : *part) {
    if (p < 0 || static_cast<size_t>(p) >= k) return false;
    ++count[static_cast<size_t>(p)];
  }
  int64_t overflow = 0;
  for (size_t q = 0; q < k; ++q) overflow += std::max(0, count[q] - capacity[q]);
  if (overflow > std::max<int64_t>(8, static_cast<int64_t>(n) / 10)) return false;
  std::vector<uint64_t> conn(k, 0);
  while (overflow > 0) {
    int64_t best_gain = INT64_MIN;
    int32_t best_v = -1, best_to = -1;
    for (size_t v = 0; v < n; ++v) {
      const int32_t own = (*part)[v];
      if (count[static_cast<size_t>(own)] <= capacity[static_cast<size_t>(own)]) continue;
      for (uint64_t e = g.begin[v]; e < g.begin[v + 1]; ++e) conn[static_cast<size_t>((*part)[static_cast<size_t>(g.adj[e])])] += g.weight[e];
      for (size_t q = 0; q < k; ++q) {
        if (count[q] >= capacity[q]) continue;
        const int64_t gain = static_cast<int64_t>(conn[q]) - static_cast<int64_t>(conn[static_cast<size_t>(own)]);
        if (gain > best_gain) best_gain = gain, best_v = static_cast<int32_t>(v), best_to = static_cast<int32_t>(q);
      }
      for (uint64_t e = g.begin[v]; e < g.begin[v + 1]; ++e) conn[static_cast<size_t>((*part)[static_cast<size_t>(g.adj[e])])] = 0;
    }
    if (best_v < 0) return false;
    --count[static_cast<size_t>((*part)[static_cast<size_t>(best_v)])];
    ++count[static_cast<size_t>(best_to)];
    (*part)[static_cast<size_t>(best_v)] = best_to;
    --overflow;
  }
  return true;
}

#if CPATH_HAVE_SCOTCH
std::vector<int32_t> scotch_map(const TrafficGraph& g, const std::vector<int32_t>& capacity) {
  if (SCOTCH_numSizeof() != static_cast<int>(sizeof(SCOTCH_Num))) return {};
  // Scotch's weights are SCOTCH_Num: scale the bytes so that their sum stays well inside it.
  uint64_t total = 0;
  for (uint64_t w : g.weight) total += w;
  const double scale = total > (1ull << 28) ? static_cast<double>(1ull << 28) / static_cast<double>(total) : 1.0;
  std::vector<SCOTCH_Num> verttab(g.begin.size()), edgetab(g.adj.size()), edlotab(g.weight.size());
  for (size_t i = 0; i < g.begin.size(); ++i) verttab[i] = static_cast<SCOTCH_Num>(g.begin[i]);
  for (size_t i = 0; i < g.adj.size(); ++i) {
    edgetab[i] = g.adj[i];
    edlotab[i] = std::max<SCOTCH_Num>(1, static_cast<SCOTCH_Num>(static_cast<double>(g.weight[i]) * scale));
  }
  std::vector<SCOTCH_Num> caps(capacity.begin(), capacity.end()), parttab(static_cast<size_t>(g.n), -1);
  // One thread, deterministic: rank 0 maps inside MPI_Finalize while the other ranks of its
  // node may still be busy, so Scotch must not start a thread per core; and the same input must
  // give the same suggestion.
  SCOTCH_Context context;
  SCOTCH_Graph graph, bound;
  SCOTCH_Arch arch;
  SCOTCH_Strat strat;
  bool ok = SCOTCH_contextInit(&context) == 0;
  ok = ok && SCOTCH_contextThreadSpawn(&context, 1, nullptr) == 0;
  ok = ok && SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) == 0;
  SCOTCH_contextRandomReset(&context);
  SCOTCH_graphInit(&graph);
  SCOTCH_graphInit(&bound);
  SCOTCH_archInit(&arch);
  SCOTCH_stratInit(&strat);
  ok = ok && SCOTCH_graphBuild(&graph, 0, g.n, verttab.data(), nullptr, nullptr, nullptr,
                               static_cast<SCOTCH_Num>(edgetab.size()), edgetab.data(), edlotab.data()) == 0;
  ok = ok && SCOTCH_contextBindGraph(&context, &graph, &bound) == 0;
  ok = ok && SCOTCH_archCmpltw(&arch, static_cast<SCOTCH_Num>(caps.size()), caps.data()) == 0;
  ok = ok && SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE,
                                       static_cast<SCOTCH_Num>(caps.size()), 0.0) == 0;
  ok = ok && SCOTCH_graphMap(&bound, &arch, &strat, parttab.data()) == 0;
  SCOTCH_stratExit(&strat);
  SCOTCH_archExit(&arch);
  SCOTCH_graphExit(&bound);
  SCOTCH_graphExit(&graph);
  SCOTCH_contextExit(&context);
  if (!ok) return {};
  return std::vector<int32_t>(parttab.begin(), parttab.end());
}
#endif

}  // namespace

std::vector<int32_t> map_ranks(const TrafficGraph& g, const std::vector<int32_t>& capacity, std::string* mapper,
                               bool use_scotch) {
#if CPATH_HAVE_SCOTCH
  std::vector<int32_t> part = use_scotch ? scotch_map(g, capacity) : std::vector<int32_t>();
  if (!part.empty() && enforce_capacity(g, capacity, &part)) {
    *mapper = "scotch";
    return part;
  }
#else
  (void)use_scotch;
#endif
  *mapper = "greedy";
  std::vector<int32_t> greedy = greedy_map(g, capacity);
  enforce_capacity(g, capacity, &greedy);
  return greedy;
}

}  // namespace cpath
