#include "sparse_exchange.h"

#include <algorithm>

#include "yielding_wait.h"

namespace cpath {

// Pairwise non-blocking messages straight from and into the callers' buffers, chunked below
// INT_MAX: an Alltoallv would need a packed copy of each side (the exchange's peak was then
// four copies of the data), and only peers with something to say take part.
void exchange_pieces(const std::vector<const uint8_t*>& send, const std::vector<long long>& send_bytes,
                     const std::vector<uint8_t*>& recv, const std::vector<long long>& recv_bytes, MPI_Comm comm) {
  const int kTag = 0x6378;
  const long long kChunk = 1ll << 30;
  std::vector<MPI_Request> reqs;
  for (size_t p = 0; p < recv_bytes.size(); ++p)
    for (long long off = 0; off < recv_bytes[p]; off += kChunk) {
      reqs.emplace_back();
      PMPI_Irecv(recv[p] + off, static_cast<int>(std::min(kChunk, recv_bytes[p] - off)), MPI_BYTE, static_cast<int>(p),
                 kTag, comm, &reqs.back());
    }
  for (size_t p = 0; p < send_bytes.size(); ++p)
    for (long long off = 0; off < send_bytes[p]; off += kChunk) {
      reqs.emplace_back();
      PMPI_Isend(send[p] + off, static_cast<int>(std::min(kChunk, send_bytes[p] - off)), MPI_BYTE, static_cast<int>(p),
                 kTag, comm, &reqs.back());
    }
  waitall_yielding(static_cast<int>(reqs.size()), reqs.data());
}

void exchange_blocks_into(const void* send, const std::vector<long long>& send_bytes, void* recv,
                          const std::vector<long long>& recv_bytes, MPI_Comm comm) {
  std::vector<const uint8_t*> sp(send_bytes.size());
  std::vector<uint8_t*> rp(recv_bytes.size());
  long long at = 0;
  for (size_t p = 0; p < sp.size(); at += send_bytes[p], ++p) sp[p] = static_cast<const uint8_t*>(send) + at;
  at = 0;
  for (size_t p = 0; p < rp.size(); at += recv_bytes[p], ++p) rp[p] = static_cast<uint8_t*>(recv) + at;
  exchange_pieces(sp, send_bytes, rp, recv_bytes, comm);
}

std::vector<std::vector<uint8_t>> exchange_bytes(const std::vector<std::vector<uint8_t>>& out, MPI_Comm comm) {
  int np = 1;
  PMPI_Comm_size(comm, &np);
  const size_t n = static_cast<size_t>(np);
  // Counts as 64-bit so that oversize messages are detected rather than wrapped.
  std::vector<long long> sc(n, 0), rc(n, 0);
  std::vector<const uint8_t*> sp(n, nullptr);
  for (size_t p = 0; p < n && p < out.size(); ++p) sc[p] = static_cast<long long>(out[p].size()), sp[p] = out[p].data();
  tool_alltoall(sc.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm);
  std::vector<std::vector<uint8_t>> in(n);
  std::vector<uint8_t*> rp(n);
  for (size_t p = 0; p < n; ++p) in[p].resize(static_cast<size_t>(rc[p])), rp[p] = in[p].data();
  exchange_pieces(sp, sc, rp, rc, comm);
  return in;
}

}  // namespace cpath
