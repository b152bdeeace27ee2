#include "comm_topology.h"

#include <mutex>

#include "record_writer.h"

namespace cpath {

namespace {

std::mutex g_mu;
std::vector<CommTopology> g_topos;

}  // namespace

void capture_topology(int record, MPI_Comm c) {
  if (record < 0 || c == MPI_COMM_NULL) return;
  int inter = 0, topo = MPI_UNDEFINED;
  PMPI_Comm_test_inter(c, &inter);
  if (inter || PMPI_Topo_test(c, &topo) != MPI_SUCCESS || topo == MPI_UNDEFINED) return;
  CommTopology t;
  t.record = record;
  if (topo == MPI_CART) {
    t.kind = TopoKind::Cart;
    int nd = 0;
    PMPI_Cartdim_get(c, &nd);
    for (int d = 0; d < nd; ++d) {
      // Neighbour collectives order a Cartesian process's neighbours by dimension, the one at
      // displacement -1 first.
      int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
      PMPI_Cart_shift(c, d, 1, &lo, &hi);
      t.sources.push_back(canonical_rank(lo));
      t.sources.push_back(canonical_rank(hi));
    }
    t.destinations = t.sources;
  } else if (topo == MPI_GRAPH) {
    t.kind = TopoKind::Graph;
    int me = 0, n = 0;
    PMPI_Comm_rank(c, &me);
    PMPI_Graph_neighbors_count(c, me, &n);
    std::vector<int> nb(static_cast<size_t>(n > 0 ? n : 1));
    if (n > 0) PMPI_Graph_neighbors(c, me, n, nb.data());
    for (int i = 0; i < n; ++i) t.sources.push_back(canonical_rank(nb[static_cast<size_t>(i)]));
    t.destinations = t.sources;
  } else if (topo == MPI_DIST_GRAPH) {
    t.kind = TopoKind::DistGraph;
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
    std::vector<int> src(static_cast<size_t>(in > 0 ? in : 1)), sw(src.size()), dst(static_cast<size_t>(out > 0 ? out : 1)),
        dw(dst.size());
    PMPI_Dist_graph_neighbors(c, in, src.data(), sw.data(), out, dst.data(), dw.data());
    for (int i = 0; i < in; ++i) t.sources.push_back(canonical_rank(src[static_cast<size_t>(i)]));
    for (int i = 0; i < out; ++i) t.destinations.push_back(canonical_rank(dst[static_cast<size_t>(i)]));
  } else {
    return;
  }
  std::lock_guard<std::mutex> g(g_mu);
  g_topos.push_back(std::move(t));
}

std::vector<CommTopology> topology_snapshot() {
  std::lock_guard<std::mutex> g(g_mu);
  return g_topos;
}

const CommTopology* topology_try_peek(size_t* n) {
  if (!g_mu.try_lock()) return nullptr;
  *n = g_topos.size();
  return g_topos.data();  // locked until topology_end_peek()
}

void topology_end_peek() { g_mu.unlock(); }

void topology_reset() {
  std::lock_guard<std::mutex> g(g_mu);
  g_topos.clear();
}

const CommTopology* topology_of(const std::vector<CommTopology>& topos, const std::vector<CommRecord>& comms,
                                int32_t rec) {
  for (int hops = 0; rec >= 0 && static_cast<size_t>(rec) < comms.size() && hops < 64; ++hops) {
    for (const CommTopology& t : topos)
      if (t.record == rec) return &t;
    const CommRecord& r = comms[static_cast<size_t>(rec)];
    if (!(r.flags & kCommDup) || r.parent >= rec) return nullptr;
    rec = r.parent;
  }
  return nullptr;
}

}  // namespace cpath
