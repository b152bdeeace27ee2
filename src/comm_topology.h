// Neighbour lists of process topologies (Cartesian, graph, distributed graph), read once when
// the communicator is created, with local queries, so neighbourhood collectives are replayed
// with their real partners (docs/pag-rules.md rule 4). Duplicates keep their parent's
// topology: they have no entry of their own (topology_of follows the parent).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "comm_registry.h"

namespace cpath {

enum class TopoKind : uint8_t { None = 0, Cart = 1, Graph = 2, DistGraph = 3 };

struct CommTopology {
  int32_t record = -1;  // communicator record index
  TopoKind kind = TopoKind::None;
  // Communicator-local ranks in MPI's neighbour order; -2 stands for MPI_PROC_NULL (a
  // Cartesian border), kept so positions match the neighbourhood collectives' buffers.
  std::vector<int32_t> sources;       // in-neighbours: whose data this process receives
  std::vector<int32_t> destinations;  // out-neighbours
};

// Records the topology of a new communicator, if it has one (CommRegistry::created).
void capture_topology(int record, MPI_Comm c);
std::vector<CommTopology> topology_snapshot();
// For the crash-time trace writer, which may not block: the topologies, or nullptr when
// another thread is capturing one right now. On success the lock stays held until
// topology_end_peek() (a capture meanwhile would reallocate the array being read).
const CommTopology* topology_try_peek(size_t* n);
void topology_end_peek();
void topology_reset();

// The topology record `rec` uses: its own, or for a duplicate its parent's; nullptr if none.
const CommTopology* topology_of(const std::vector<CommTopology>& topos, const std::vector<CommRecord>& comms,
                                int32_t rec);

}  // namespace cpath
