// Loading: every trace.<rank>.cpt of a directory (load_traces.h, shared with the other twins),
// checked to be one whole job, and the meta data the rules use.
#include <algorithm>
#include <cstdlib>

#include "load_traces.h"
#include "ref.h"

namespace cpref {

namespace {

int64_t meta_int(const cpath::RankTrace& t, const char* key) {
  const std::string v = t.meta_value(key);
  if (v.empty()) return -1;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  return end && *end == '\0' && x >= 0 ? x : -1;
}

}  // namespace

bool load_job(const std::string& dir, Job* job, std::string* error) {
  std::vector<cpath::RankTrace> traces;
  if (!cpath::ref::load_traces(dir, &traces)) return false;  // it said why
  // A job that ended before MPI_Finalize (crash-time traces, meta partial=) may have left no
  // trace for some ranks: those are analysed as ranks without calls, and named.
  bool partial = false;
  for (const cpath::RankTrace& t : traces) partial = partial || !t.meta_value("partial").empty();
  const int size = partial ? traces.front().size : static_cast<int>(traces.size());
  job->ranks.assign(static_cast<size_t>(std::max(size, 0)), Rank());
  std::vector<bool> present(job->ranks.size(), false);
  for (size_t i = 0; i < traces.size(); ++i) {
    cpath::RankTrace& t = traces[i];
    const bool fits = partial ? t.size == size && t.rank >= 0 && t.rank < size && !present[static_cast<size_t>(t.rank)]
                              : t.rank == static_cast<int>(i) && t.size == size;
    if (!fits) {
      *error = "rank " + std::to_string(t.rank) + " of " + std::to_string(t.size) + " does not fit the " +
               std::to_string(traces.size()) + " trace files of " + dir;
      return false;
    }
    present[static_cast<size_t>(t.rank)] = true;
    Rank& r = job->ranks[static_cast<size_t>(t.rank)];
    r.trace = std::move(t);
    r.host = r.trace.meta_value("host");
    r.eager_intra = meta_int(r.trace, "eager_limit_intra");
    r.eager_inter = meta_int(r.trace, "eager_limit_inter");
    r.inline_intra = meta_int(r.trace, "eager_inline_intra");
    r.inline_inter = meta_int(r.trace, "eager_inline_inter");
  }
  job->partial = partial;
  for (int r = 0; r < size; ++r)
    if (!present[static_cast<size_t>(r)]) {
      job->missing.push_back(r);
      job->ranks[static_cast<size_t>(r)].trace.rank = r;
      job->ranks[static_cast<size_t>(r)].trace.size = size;
    }
  return true;
}

}  // namespace cpref
