// Loading: every trace.<rank>.cpt of a directory (load_traces.h, shared with the other twins),
// checked to be one whole job, and the meta data the rules use.
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
  job->ranks.assign(traces.size(), Rank());
  for (size_t i = 0; i < traces.size(); ++i) {
    cpath::RankTrace& t = traces[i];
    if (t.rank != static_cast<int>(i) || t.size != static_cast<int>(traces.size())) {
      *error = "rank " + std::to_string(t.rank) + " of " + std::to_string(t.size) + " does not fit the " +
               std::to_string(traces.size()) + " trace files of " + dir;
      return false;
    }
    Rank& r = job->ranks[i];
    r.trace = std::move(t);
    r.host = r.trace.meta_value("host");
    r.eager_intra = meta_int(r.trace, "eager_limit_intra");
    r.eager_inter = meta_int(r.trace, "eager_limit_inter");
  }
  return true;
}

}  // namespace cpref
