// Personalised all-to-all over the tool communicator: one message per rank pair that has
// something to say. The counts travel in one MPI_Alltoall (O(P) integers per rank), the data in
// point-to-point messages between the callers' own buffers.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tool_collectives.h"

namespace cpath {

// out[p] is sent to rank p; returns in[p], what rank p sent to this rank.
std::vector<std::vector<uint8_t>> exchange_bytes(const std::vector<std::vector<uint8_t>>& out, MPI_Comm comm);

// send_bytes[p] bytes at send[p] go to rank p, recv_bytes[p] bytes from rank p land at recv[p]
// (the counts agreed beforehand): the point-to-point part of every exchange here.
void exchange_pieces(const std::vector<const uint8_t*>& send, const std::vector<long long>& send_bytes,
                     const std::vector<uint8_t*>& recv, const std::vector<long long>& recv_bytes, MPI_Comm comm);

// The point-to-point part: send_bytes[p] bytes of `send` (laid out by destination) go to rank
// p, recv_bytes[p] bytes from rank p into `recv` (laid out by source, in rank order).
void exchange_blocks_into(const void* send, const std::vector<long long>& send_bytes, void* recv,
                          const std::vector<long long>& recv_bytes, MPI_Comm comm);

// What one rank packs per round of exchange_records_streamed.
constexpr size_t kExchangeRoundBytes = size_t{4} << 20;

// Fixed-size records from every rank to every rank, made and taken a round at a time: no
// per-peer buffer, no parsing, and neither side holds more than a round. The sender makes its
// records as they go: make(p, i, &r) writes the i-th record for rank p (i < count[p]). They
// travel in rounds of at most about round_bytes per sending rank, each a slice of every
// destination's run (on a halo exchange the whole outgoing array was an eighth of the
// analysis's peak). After each round, take(p, lo, recs, n) gets records [lo, lo + n) of rank
// p's run to this rank: every rank in order, each run in order over the rounds (the
// point-to-point replay matches each sender's run as it comes; its received sends were a
// seventh of the analysis's peak). T must have no padding, since its bytes go on the wire as
// they are. largest_round, if given, gets the most records this rank packed in one round
// (tests).
template <class T, class Make, class Take>
void exchange_records_streamed(const std::vector<long long>& count, Make make, Take take, MPI_Comm comm,
                               size_t round_bytes = kExchangeRoundBytes, size_t* largest_round = nullptr) {
  static_assert(std::has_unique_object_representations_v<T>, "no padding bytes on the wire");
  int np = 1;
  PMPI_Comm_size(comm, &np);
  const size_t n = static_cast<size_t>(np);
  std::vector<long long> sc(n, 0), rc(n, 0);
  long long out_total = 0;
  for (size_t p = 0; p < n && p < count.size(); ++p) sc[p] = count[p], out_total += count[p];
  tool_alltoall(sc.data(), 1, MPI_LONG_LONG, rc.data(), 1, MPI_LONG_LONG, comm);
  // Every rank takes part in every round (the slices are agreed from the counts alone).
  const long long per_round = std::max<long long>(1, static_cast<long long>(round_bytes / sizeof(T)));
  long long rounds = std::max<long long>(1, (out_total + per_round - 1) / per_round);
  tool_allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, comm);
  // Round k carries records [c*k/R, c*(k+1)/R) of a run of c.
  auto cut = [rounds](long long c, long long k) { return static_cast<long long>(static_cast<unsigned __int128>(c) * k / rounds); };
  std::vector<T> out, in;
  std::vector<const uint8_t*> sp(n);
  std::vector<uint8_t*> rp(n);
  std::vector<long long> sb(n), rb(n);
  for (long long k = 0; k < rounds; ++k) {
    size_t want = 0, coming = 0;
    for (size_t p = 0; p < n; ++p) {
      want += static_cast<size_t>(cut(sc[p], k + 1) - cut(sc[p], k));
      coming += static_cast<size_t>(cut(rc[p], k + 1) - cut(rc[p], k));
    }
    out.resize(want);
    in.resize(coming);
    if (largest_round) *largest_round = std::max(*largest_round, want);
    size_t at = 0, got = 0;
    for (size_t p = 0; p < n; ++p) {
      const long long lo = cut(sc[p], k), hi = cut(sc[p], k + 1);
      sp[p] = reinterpret_cast<const uint8_t*>(out.data() + at);
      sb[p] = (hi - lo) * static_cast<long long>(sizeof(T));
      for (long long i = lo; i < hi; ++i) make(static_cast<int>(p), static_cast<size_t>(i), &out[at++]);
      const long long rlo = cut(rc[p], k), rhi = cut(rc[p], k + 1);
      rp[p] = reinterpret_cast<uint8_t*>(in.data() + got);
      rb[p] = (rhi - rlo) * static_cast<long long>(sizeof(T));
      got += static_cast<size_t>(rhi - rlo);
    }
    exchange_pieces(sp, sb, rp, rb, comm);
    got = 0;
    for (size_t p = 0; p < n; ++p) {
      const long long rlo = cut(rc[p], k), rhi = cut(rc[p], k + 1);
      if (rhi > rlo) take(static_cast<int>(p), static_cast<size_t>(rlo), static_cast<const T*>(in.data() + got), static_cast<size_t>(rhi - rlo));
      got += static_cast<size_t>(rhi - rlo);
    }
  }
}

}  // namespace cpath
