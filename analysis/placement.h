// Placement (issue 10): which node each rank ran on (MPI_Get_processor_name, or option
// ranks_per_node=N to plan for nodes of N ranks filled by slot), the point-to-point bytes that
// cross nodes with that mapping, and a suggested mapping (rank_mapping.h) written as an Open
// MPI rankfile and an MPICH/Hydra host list. Topology communicators (MPI_Cart_create,
// MPI_Graph_create, MPI_Dist_graph_create*) are listed with how much MPI reordered them.
#pragma once
#include <mpi.h>

#include "communication_report.h"
#include "timeline.h"

namespace cpath {

// Collective over `comm`; complete on rank 0. `comm_rep` is analyse_communication's result.
PlacementReport analyse_placement(const Timeline& tl, const CommunicationReport& comm_rep, int ranks_per_node,
                                  MPI_Comm comm);

}  // namespace cpath
