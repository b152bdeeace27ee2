#include "mpi_helpers.h"

namespace cpath {

int coll_size(MPI_Comm c) {
  int inter = 0, n = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter)
    PMPI_Comm_remote_size(c, &n);
  else
    PMPI_Comm_size(c, &n);
  return n;
}

int in_degree(MPI_Comm c) {
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(c, &topo);
  if (topo == MPI_CART) {
    int nd = 0;
    PMPI_Cartdim_get(c, &nd);
    return 2 * nd;
  }
  if (topo == MPI_GRAPH) {
    int rank = 0, n = 0;
    PMPI_Comm_rank(c, &rank);
    PMPI_Graph_neighbors_count(c, rank, &n);
    return n;
  }
  if (topo == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
    return in;
  }
  return 0;
}

bool is_root(MPI_Comm c, int root) {
  if (root == MPI_ROOT) return true;
  if (root < 0) return false;
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter) return false;
  int rank = -1;
  PMPI_Comm_rank(c, &rank);
  return rank == root;
}

void status_from_fortran(const MPI_Fint* f, int rc, MPI_Status* out) {
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && PMPI_Status_f2c(f, out) == MPI_SUCCESS) return;
  out->MPI_SOURCE = MPI_PROC_NULL;
  out->MPI_TAG = MPI_ANY_TAG;
  out->MPI_ERROR = rc;
}

}  // namespace cpath
