// Reads every rank's dumped trace (trace.<rank>.cpt, option dump=1) from a directory, sorted by
// rank. Returns false after printing one line on stderr. A job that ended before MPI_Finalize
// (partial traces) may leave unreadable files: those are skipped with a line each.
#pragma once
#include <string>
#include <vector>

#include "rank_trace.h"

namespace cpath {
namespace ref {

bool load_traces(const std::string& dir, std::vector<RankTrace>* ranks);

}  // namespace ref
}  // namespace cpath
