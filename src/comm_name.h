// Job-wide display name of a communicator record: "world", "self", "c<world rank of local
// rank 0>.<its counter>", "i<hex key>" for intercommunicators' derived keys, and
// "<parent>.dup<n>" for the n-th MPI_Comm_dup/idup of a parent. Every member of a
// communicator derives the same name from its own records.
#pragma once
#include <cstdint>
#include <string>

#include "rank_trace.h"

namespace cpath {

std::string comm_name(const RankTrace& t, int32_t rec);

}  // namespace cpath
