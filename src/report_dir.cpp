#include "report_dir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cpath {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Creates `path` and its missing parents. Returns 0 or the errno of the failing step.
int make_dirs(const std::string& path) {
  size_t i = path[0] == '/' ? 1 : 0;
  while (true) {
    const size_t j = path.find('/', i);
    const std::string part = path.substr(0, j);
    if (!part.empty() && mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    if (j == std::string::npos) break;
    i = j + 1;
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

bool has_report_files(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d))
    if (is_report_file_name(e->d_name)) {
      found = true;
      break;
    }
  closedir(d);
  return found;
}

// Removes the previous run's files (overwrite=1); other files stay.
void remove_report_files(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d))
    if (is_report_file_name(e->d_name)) names.push_back(e->d_name);
  closedir(d);
  for (const std::string& n : names) {
    const std::string p = dir + "/" + n;
    struct stat st;
    if (lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) unlink(p.c_str());
  }
}

std::string absolute(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) return p;
  std::string cwd(buf);
  return p == "." ? cwd : cwd + "/" + (p.compare(0, 2, "./") == 0 ? p.substr(2) : p);
}

std::string base_name(const std::string& p) {
  const size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

bool is_report_file_name(const std::string& n) {
  if (n == "rankfile" || n == "hosts.hydra") return true;  // placement suggestion
  const size_t dot = n.find('.');
  if (dot == std::string::npos) return false;
  const std::string head = n.substr(0, dot), tail = n.substr(dot + 1);
  if (head == "report" || head == "timeline") return true;
  // trace.<rank>.cpt, path.<rank>.txt, matches.<rank>.txt, and comm_*.csv / startup.csv of the communication
  // analysis.
  const size_t dot2 = tail.find('.');
  if ((head == "trace" || head == "path" || head == "matches") && dot2 != std::string::npos && all_digits(tail.substr(0, dot2)))
    return true;
  return (n.compare(0, 5, "comm_") == 0 || head == "startup") && tail == "csv";
}

ReportDirChoice choose_report_dir(const std::string& wanted, const std::string& default_name, bool overwrite) {
  ReportDirChoice c;
  std::string want = wanted.empty() ? default_name : wanted;
  while (want.size() > 1 && want.back() == '/') want.pop_back();
  const bool explicit_name = !wanted.empty();
  struct stat st;
  int err = 0;
  if (stat(want.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (!has_report_files(want)) {
        c.path = absolute(want);  // nothing of ours to overwrite
        return c;
      }
      if (overwrite) {
        remove_report_files(want);
        c.path = absolute(want);
        return c;
      }
    }
    // A previous report, or a file of that name: a numbered sibling, created atomically.
    for (int i = 2; i < 10000; ++i) {
      const std::string cand = want + "-" + std::to_string(i);
      if (mkdir(cand.c_str(), 0755) == 0) {
        c.path = absolute(cand);
        if (explicit_name)
          c.note = "report directory " + want + (S_ISDIR(st.st_mode) ? " holds an earlier report" : " is a file") +
                   ": writing to " + cand + (S_ISDIR(st.st_mode) ? " (overwrite=1 reuses it)" : "");
        return c;
      }
      if (errno != EEXIST) {
        err = errno;
        break;
      }
    }
    if (!err) err = EEXIST;
  } else {
    err = make_dirs(want);
    if (!err) {
      c.path = absolute(want);
      return c;
    }
  }
  // Fall back to a new directory of our own under $TMPDIR: never the current directory, where
  // files of the same names could be overwritten.
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/" + base_name(default_name) + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data())) {
    c.path = buf.data();
    c.note = "cannot create report directory " + want + " (" + std::strerror(err) + "): writing to " + c.path;
  } else {
    c.note = "cannot create report directory " + want + " (" + std::strerror(err) + ") nor one under " +
             (t && *t ? t : "/tmp") + ": no report files";
  }
  return c;
}

}  // namespace cpath
