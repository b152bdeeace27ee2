// cpath-ref: the sequential reference analysis over dumped traces (see ref.h).
//
//   cpath-ref DIR            the path segments, earliest first: "rank kind begin end call"
//                            (kind compute, mpi or startup; times in ns on the global clock;
//                            call: the call the segment belongs to, numbered as in ref.h)
//   cpath-ref --summary DIR  elapsed, length, compute and MPI time, segments, time per rank
//   cpath-ref --summary DIR  ... and what the clock-condition repair found (clock_* lines)
//   cpath-ref --violations DIR  also lists the clock-condition violations before the repair
//   cpath-ref --counts DIR   also what could not be placed, by cause, on stderr
//   cpath-ref --comm DIR [OUTDIR]  communication matrices (communication.h)
//   cpath-ref --startup DIR        start-up figures per rank (startup.h)
//   cpath-ref --whatif DIR         the what-if scenarios re-timed (what_if.cpp; needs the run's whatif.<rank>.txt)
//   cpath-ref --waits DIR          wait states and root causes (ref.h print_wait_states)
//   cpath-ref --pop DIR            the POP efficiency factors (what_if.cpp print_pop)
// A job that ended before MPI_Finalize (traces written at the crash, meta partial=) is analysed
// as far as its records go, and the output starts with the partial label: "partial 1",
// "missing_ranks <r,...|none>", "rank_end <rank> <ns> <why>" per partial trace, "path_end <ns>
// rank <r>" ('#'-prefixed before the segments).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "communication.h"
#include "ref.h"
#include "startup.h"

namespace {

const char kUsage[] =
    "usage: cpath-ref [OPTION] DIR   the reference analysis of the traces DIR/trace.<rank>.cpt (dump=1)\n"
    "  (none)                 the critical path's segments, earliest first: rank kind begin end call\n"
    "  --summary              elapsed, path length, compute and MPI time, time per rank, the clock repair\n"
    "  --violations           with --summary: also list the clock-condition violations before the repair\n"
    "  --counts               also what could not be placed, by cause, on stderr\n"
    "  --comm DIR [OUTDIR]    communication matrices\n"
    "  --startup DIR          start-up figures per rank\n"
    "  --whatif               the what-if scenarios re-timed (needs the run's whatif.<rank>.txt, path=1)\n"
    "  --waits                wait states and root causes\n"
    "  --pop                  the POP efficiency factors\n";

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (argc > 1 && !std::strcmp(argv[1], "--comm")) return cpath::ref::communication_main(argc - 1, argv + 1);
  if (argc > 1 && !std::strcmp(argv[1], "--startup")) return cpath::ref::startup_main(argc - 1, argv + 1);
  bool summary = false, counts = false, violations = false, whatif = false, waits = false, pop = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--summary")) summary = true;
    else if (!std::strcmp(argv[i], "--counts")) counts = true;
    else if (!std::strcmp(argv[i], "--violations")) violations = true;
    else if (!std::strcmp(argv[i], "--whatif")) whatif = true;
    else if (!std::strcmp(argv[i], "--waits")) waits = true;
    else if (!std::strcmp(argv[i], "--pop")) pop = true;
    else if (argv[i][0] == '-') {
      std::fprintf(stderr, "cpath-ref: unknown option %s\n%s", argv[i], kUsage);
      return 2;
    } else {
      dir = argv[i];
    }
  }
  if (dir.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  cpref::Job job;
  std::string err;
  if (!cpref::load_job(dir, &job, &err)) {
    if (!err.empty()) std::fprintf(stderr, "cpath-ref: %s\n", err.c_str());
    return 1;
  }
  cpref::build_timelines(&job);
  cpref::link_requests(&job);
  cpref::match_point_to_point(&job);
  cpref::match_collectives(&job);
  cpref::link_begins(&job);
  cpref::repair_clocks(&job, violations);
  if (whatif || pop) return cpref::what_if_main(job, dir, pop);
  bool truncated = false;
  const std::vector<cpref::Segment> path = cpref::walk_path(job, &truncated);
  if (path.empty()) {
    std::fprintf(stderr, job.partial ? "cpath-ref: the partial traces hold no completed call\n"
                                     : "cpath-ref: no rank recorded MPI_Finalize\n");
    return 1;
  }
  if (truncated) std::fprintf(stderr, "cpath-ref: the walk hit its step limit; the path is incomplete\n");
  if (counts) {
    const cpref::Counts& c = job.counts;
    std::fprintf(stderr,
                 "sends_unmatched %" PRIu64 "\nrecvs_unmatched %" PRIu64 "\np2p_skipped %" PRIu64 "\nintercomm %" PRIu64
                 "\nunknown_comm %" PRIu64 "\ncoll_missing %" PRIu64 "\nunknown_requests %" PRIu64
                 "\nnever_completed %" PRIu64 "\nfreed_active %" PRIu64 "\nrma_sync %" PRIu64
                 "\nneighbour_without_topology %" PRIu64 "\nthread_channel_order %" PRIu64 "\nthread_start %" PRIu64 "\n",
                 c.sends_unmatched, c.recvs_unmatched, c.p2p_skipped, c.intercomm, c.unknown_comm, c.coll_missing,
                 c.unknown_requests, c.never_completed, c.freed_active, c.rma_sync, c.neighbour_without_topology,
                 c.thread_channel_order, c.thread_start);
  }
  // The partial label: which ranks left no trace, why the others' traces end, and when.
  std::vector<std::string> label;
  if (job.partial) {
    std::string missing;
    for (int r : job.missing) missing += (missing.empty() ? "" : ",") + std::to_string(r);
    label.push_back("partial 1");
    label.push_back("missing_ranks " + (missing.empty() ? std::string("none") : missing));
    for (const cpref::Rank& r : job.ranks) {
      const std::string why = r.trace.meta_value("partial");
      if (why.empty()) continue;
      const int64_t end = r.calls.empty() ? 0 : std::max_element(r.calls.begin(), r.calls.end(), [](const cpref::Call& a, const cpref::Call& b) { return a.e < b.e; })->e;
      label.push_back("rank_end " + std::to_string(r.trace.rank) + " " + std::to_string(end) + " " + why);
    }
    const cpref::Segment& last = path.back();
    label.push_back("path_end " + std::to_string(last.end) + " rank " + std::to_string(last.rank));
  }
  if (waits) {
    cpref::print_wait_states(job, path);
    return 0;
  }
  if (summary) {
    for (const std::string& l : label) std::printf("%s\n", l.c_str());
    const int np = static_cast<int>(job.ranks.size());
    double total = 0, compute = 0, mpi = 0;
    std::vector<double> per(static_cast<size_t>(np), 0.0);
    for (const cpref::Segment& s : path) {
      const double d = static_cast<double>(s.end - s.begin) * 1e-9;
      total += d;
      (std::strcmp(s.kind, "mpi") == 0 ? mpi : compute) += d;
      per[static_cast<size_t>(s.rank)] += d;
    }
    const cpref::Segment& last = path.back();
    const int64_t fin = job.ranks[static_cast<size_t>(last.rank)].calls[last.call].b;
    std::printf("elapsed_s %.9f\nlength_s %.9f\ncompute_s %.9f\nmpi_s %.9f\nsegments %zu\n",
                static_cast<double>(fin - job.job_begin) * 1e-9, total, compute, mpi, path.size());
    for (int r = 0; r < np; ++r) std::printf("rank %d %.9f\n", r, per[static_cast<size_t>(r)]);
    const cpref::ClockRepair& c = job.clock;
    std::printf("clock_violations %" PRIu64 "\nclock_repaired %" PRIu64 "\nclock_unrepaired %" PRIu64
                "\nclock_shifted %" PRIu64 "\nclock_max_shift_ns %" PRId64 "\nclock_rounds %d\nclock_unsynchronised %" PRIu64
                "\ncollective_calls_beyond_pattern %" PRIu64 "\n",
                c.violations, c.repaired, c.unrepaired, c.shifted, c.max_shift, c.rounds, c.unsynchronised, c.beyond_pattern);
    return 0;
  }
  for (const std::string& l : label) std::printf("# %s\n", l.c_str());
  for (const cpref::Segment& s : path)
    std::printf("%d %s %" PRId64 " %" PRId64 " %u\n", s.rank, s.kind, s.begin, s.end, s.call);
  return 0;
}
