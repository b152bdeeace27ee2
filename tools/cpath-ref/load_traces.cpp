#include "load_traces.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>

#include "trace_file.h"

namespace cpath {
namespace ref {

bool load_traces(const std::string& dir, std::vector<RankTrace>* ranks) {
  std::vector<std::string> unreadable;
  bool partial = false;
  if (DIR* dp = opendir(dir.c_str())) {
    while (dirent* de = readdir(dp)) {
      const std::string n = de->d_name;
      if (n.rfind("trace.", 0) != 0 || n.size() < 10 || n.compare(n.size() - 4, 4, ".cpt") != 0) continue;
      RankTrace t;
      std::string err;
      if (!read_trace_file(dir + "/" + n, &t, &err)) {
        unreadable.push_back(err);
        continue;
      }
      partial = partial || !t.meta_value("partial").empty();
      ranks->push_back(std::move(t));
    }
    closedir(dp);
  }
  // A job that ended before MPI_Finalize: a rank killed while writing its trace leaves an
  // unreadable file, and is analysed as a rank without a trace. Otherwise any bad file is fatal.
  for (const std::string& e : unreadable) {
    std::fprintf(stderr, "cpath-ref: %s%s\n", e.c_str(), partial ? " (skipped: the job ended before MPI_Finalize)" : "");
    if (!partial) return false;
  }
  if (ranks->empty()) {
    std::fprintf(stderr, "cpath-ref: no trace.<rank>.cpt files in %s (run with LIBCPATH_OPTIONS=dump=1)\n", dir.c_str());
    return false;
  }
  std::sort(ranks->begin(), ranks->end(), [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  return true;
}

}  // namespace ref
}  // namespace cpath
