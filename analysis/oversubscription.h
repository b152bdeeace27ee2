// Whether the job is oversubscribed: more ranks on a host than CPUs they may run on (the union
// of their affinity masks, i.e. the online CPUs unless a cpuset narrows them). Then
// waiting ranks yield the CPU to each other, which explains MPI time dominated by waiting and
// hotspots such as __sched_yield; the report says so in one line.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace cpath {

struct Oversubscription {
  bool oversubscribed = false;
  std::string line;  // rank 0: "" or the report's sentence (the most crowded host)
};

// Collective over `comm` (one MPI_Gather of the affinity masks, 128 bytes a rank); `hosts` (rank 0 only) are the ranks' host names.
Oversubscription detect_oversubscription(const std::vector<std::string>& hosts, MPI_Comm comm);

}  // namespace cpath
