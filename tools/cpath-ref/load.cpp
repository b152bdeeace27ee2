// Loading: every trace.<rank>.cpt of a directory, decoded by src/trace_file.
#include <dirent.h>

#include <cstdlib>

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
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("trace.", 0) == 0 && n.size() > 10 && n.substr(n.size() - 4) == ".cpt") files.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  if (files.empty()) {
    *error = "no trace.<rank>.cpt files in " + dir + " (run with LIBCPATH_OPTIONS=dump=1)";
    return false;
  }
  job->ranks.assign(files.size(), Rank());
  std::vector<bool> seen(files.size(), false);
  for (const std::string& f : files) {
    cpath::RankTrace t;
    std::string err;
    if (!cpath::read_trace_file(f, &t, &err)) {
      *error = err;
      return false;
    }
    if (t.rank < 0 || static_cast<size_t>(t.rank) >= files.size() || seen[static_cast<size_t>(t.rank)] ||
        t.size != static_cast<int>(files.size())) {
      *error = f + ": rank " + std::to_string(t.rank) + " of " + std::to_string(t.size) + " does not fit the " +
               std::to_string(files.size()) + " trace files of the directory";
      return false;
    }
    seen[static_cast<size_t>(t.rank)] = true;
    Rank& r = job->ranks[static_cast<size_t>(t.rank)];
    r.trace = std::move(t);
    r.host = r.trace.meta_value("host");
    r.eager_intra = meta_int(r.trace, "eager_limit_intra");
    r.eager_inter = meta_int(r.trace, "eager_limit_inter");
  }
  return true;
}

}  // namespace cpref
