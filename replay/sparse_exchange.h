// Personalised all-to-all of byte buffers over the tool communicator: one message per rank
// pair that has something to say. The counts travel in one MPI_Alltoall (O(P) integers per
// rank), the data in point-to-point messages between the callers' own buffers.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace cpath {

// out[p] is sent to rank p; returns in[p], what rank p sent to this rank.
std::vector<std::vector<uint8_t>> exchange_bytes(const std::vector<std::vector<uint8_t>>& out, MPI_Comm comm);

}  // namespace cpath
