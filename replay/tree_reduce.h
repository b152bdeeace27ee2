// Merging per-rank tables on rank 0 along a binomial tree: each rank receives its children's
// tables, merges them into its own and sends the result to its parent. Tables are keyed by
// strings (symbolised call sites, function names), so ranks never exchange raw addresses.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cpath {

using StringTable = std::map<std::string, std::vector<double>>;

// The tree itself: each rank passes every child's bytes to `merge_child`, then sends
// `serialize()` of what it has merged to its parent. Collective; rank 0 ends with everything.
void tree_merge_to_root(MPI_Comm comm, int tag, const std::function<void(const std::vector<uint8_t>&)>& merge_child,
                        const std::function<std::vector<uint8_t>()>& serialize);

// Sums the value vectors of equal keys. Collective; the result is complete on rank 0 only.
void reduce_table_to_root(StringTable* table, MPI_Comm comm);
// Same, but a row keeps whichever contribution has the larger value[0] instead of summing.
void reduce_table_to_root_max(StringTable* table, MPI_Comm comm);
// Rank 0 receives every rank's bytes, in rank order and in rounds of Gatherv of at most
// `round_bytes` (a larger rank is a round alone), so its peak is one round plus what `take`
// keeps; `take(rank, data, size)` runs on rank 0 only. Nothing is gathered when the total
// exceeds `limit` (then, on rank 0, the result is false). `total` (rank 0): the sum of sizes.
// Collective.
bool gather_bytes_to_root(const std::vector<uint8_t>& mine, MPI_Comm comm,
                          const std::function<void(int rank, const uint8_t* data, size_t size)>& take,
                          uint64_t round_bytes = 1ull << 30, uint64_t limit = UINT64_MAX, uint64_t* total = nullptr);
// Rank 0's list of strings to everyone.
void broadcast_strings(std::vector<std::string>* v, MPI_Comm comm);

std::vector<uint8_t> serialize_table(const StringTable& t);
bool deserialize_table(const std::vector<uint8_t>& b, StringTable* t);

}  // namespace cpath
