// Personalised all-to-all over the tool communicator: one message per rank pair that has
// something to say. The counts travel in one MPI_Alltoall (O(P) integers per rank), the data in
// point-to-point messages between the callers' own buffers.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "tool_collectives.h"

namespace cpath {

// out[p] is sent to rank p; returns in[p], what rank p sent to this rank.
std::vector<std::vector<uint8_t>> exchange_bytes(const std::vector<std::vector<uint8_t>>& out, MPI_Comm comm);

// The point-to-point part: send_bytes[p] bytes of `send` (laid out by destination) go to rank
// p, recv_bytes[p] bytes from rank p into `recv` (laid out by source, in rank order).
void exchange_blocks_into(const void* send, const std::vector<long long>& send_bytes, void* recv,
                          const std::vector<long long>& recv_bytes, MPI_Comm comm);

// Fixed-size records laid out by destination (count[p] of them for rank p, in rank order) go
// straight into one array laid out by source; from (size P + 1) gets each source's first index.
// No per-peer buffer and no parsing: the array received is the one the caller works on. T must
// have no padding, since its bytes go on the wire as they are.
template <class T>
std::vector<T> exchange_records(const std::vector<T>& out, const std::vector<long long>& count, MPI_Comm comm,
                                std::vector<size_t>* from) {
  static_assert(std::has_unique_object_representations_v<T>, "no padding bytes on the wire");
  int np = 1;
  PMPI_Comm_size(comm, &np);
  std::vector<long long> sb(static_cast<size_t>(np), 0);
  for (size_t p = 0; p < sb.size() && p < count.size(); ++p) sb[p] = count[p] * static_cast<long long>(sizeof(T));
  // Counts first, then the array sized once and received into in place.
  std::vector<long long> rc(static_cast<size_t>(np), 0);
  tool_alltoall(sb.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm);
  long long total = 0;
  from->assign(static_cast<size_t>(np) + 1, 0);
  for (size_t p = 0; p < rc.size(); ++p) {
    (*from)[p] = static_cast<size_t>(total) / sizeof(T);
    total += rc[p];
  }
  from->back() = static_cast<size_t>(total) / sizeof(T);
  std::vector<T> in(static_cast<size_t>(total) / sizeof(T));
  exchange_blocks_into(out.data(), sb, in.data(), rc, comm);
  return in;
}

}  // namespace cpath
