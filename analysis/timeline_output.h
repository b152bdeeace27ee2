// Writes timeline.json and timeline.bin at MPI_Finalize without funnelling the data through one
// rank: the ranks agree on what fits under the size cap (two reductions of fixed-size
// histograms), each computes the exact size of its part, an exclusive scan gives its offset and
// every rank writes its own part with MPI-IO, in bounded chunks. If MPI-IO cannot open the
// files, rank 0 writes them and receives the other parts one rank at a time (bounded memory).
#pragma once
#include <mpi.h>

#include <string>

#include "report.h"
#include "timeline_writer.h"

namespace cpath {

// Collective over comm. The summary is complete on rank 0.
TimelineSummary write_timeline(const TimelinePart& part, const std::string& dir, uint64_t cap, uint64_t mpiio_min,
                               const std::string& app,
                               int64_t origin_ns, int64_t span_ns, MPI_Comm comm);

}  // namespace cpath
