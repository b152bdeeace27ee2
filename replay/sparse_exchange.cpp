#include "sparse_exchange.h"

#include <algorithm>

#include "yielding_wait.h"

namespace cpath {

std::vector<std::vector<uint8_t>> exchange_bytes(const std::vector<std::vector<uint8_t>>& out, MPI_Comm comm) {
  int np = 1;
  PMPI_Comm_size(comm, &np);
  const size_t n = static_cast<size_t>(np);
  // Counts as 64-bit so that oversize messages are detected rather than wrapped.
  std::vector<long long> sc(n, 0), rc(n, 0);
  for (size_t p = 0; p < n && p < out.size(); ++p) sc[p] = static_cast<long long>(out[p].size());
  PMPI_Alltoall(sc.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm);
  std::vector<std::vector<uint8_t>> in(n);
  // Pairwise non-blocking messages straight from and into the callers' buffers, chunked below
  // INT_MAX: an Alltoallv would need a packed copy of each side (the exchange's peak was then
  // four copies of the data), and only peers with something to say take part.
  const int kTag = 0x6378;
  const long long kChunk = 1ll << 30;
  std::vector<MPI_Request> reqs;
  for (size_t p = 0; p < n; ++p) {
    in[p].resize(static_cast<size_t>(rc[p]));
    for (long long off = 0; off < rc[p]; off += kChunk) {
      reqs.emplace_back();
      PMPI_Irecv(in[p].data() + off, static_cast<int>(std::min(kChunk, rc[p] - off)), MPI_BYTE, static_cast<int>(p),
                 kTag, comm, &reqs.back());
    }
  }
  for (size_t p = 0; p < n && p < out.size(); ++p) {
    for (long long off = 0; off < sc[p]; off += kChunk) {
      reqs.emplace_back();
      PMPI_Isend(out[p].data() + off, static_cast<int>(std::min(kChunk, sc[p] - off)), MPI_BYTE, static_cast<int>(p),
                 kTag, comm, &reqs.back());
    }
  }
  waitall_yielding(static_cast<int>(reqs.size()), reqs.data());
  return in;
}

}  // namespace cpath
