// cpath: runs an MPI job under libcpath, passing the preload and the options the way the
// job's launcher needs them, or prints a report directory's text report again.
//   cpath [-o OPTIONS] [-n] [--launcher KIND] LAUNCHER ARGS...   (mpirun, mpiexec, srun)
//   cpath show DIR
// The launcher's and the application's arguments are passed on untouched: cpath only inserts
// its own arguments right after the launcher's name, before any of the user's.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#ifndef CPATH_VERSION
#define CPATH_VERSION "unknown"
#endif
#ifndef CPATH_REL_LIBDIR
#define CPATH_REL_LIBDIR "../lib"
#endif

namespace {

const char* const kUsage =
    "usage: cpath [options] LAUNCHER [launcher arguments] PROGRAM [program arguments]\n"
    "       cpath show DIR\n"
    "\n"
    "Runs an MPI job with libcpath preloaded in every rank; the critical-path report is printed\n"
    "by rank 0 at MPI_Finalize and written into a report directory.\n"
    "  cpath mpirun -np 64 ./app                      Open MPI: -x LD_PRELOAD=... -x LIBCPATH_OPTIONS=...\n"
    "  cpath -o out=run1,top=20 mpiexec -n 64 ./app   MPICH / Intel MPI (Hydra): -genv\n"
    "  cpath srun -n 64 ./app                         Slurm: --export=ALL,LD_PRELOAD=...\n"
    "  cpath show run1                                prints run1/report.txt\n"
    "\n"
    "options (before the launcher):\n"
    "  -o, --options OPTS   libcpath options, e.g. out=run1,top=20 (docs/options.md); added to\n"
    "                       LIBCPATH_OPTIONS from the environment, later keys win\n"
    "  -n, --dry-run        print the command instead of running it\n"
    "  --launcher KIND      openmpi, hydra, srun, or env (set the variables in the command's own\n"
    "                       environment, e.g. a singleton run: cpath --launcher env ./app);\n"
    "                       default: recognised from the launcher\n"
    "  --lib PATH           the libcpath.so to preload (default: the one installed with cpath)\n"
    "  --print-lib          print the path of libcpath.so and exit\n"
    "  -h, --help, --version\n";

enum class Kind { Unknown, OpenMpi, Hydra, Srun, Env };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::OpenMpi: return "openmpi";
    case Kind::Hydra: return "hydra";
    case Kind::Srun: return "srun";
    case Kind::Env: return "env";
    default: return "unknown";
  }
}

[[noreturn]] void die(int rc, const std::string& msg) {
  std::fprintf(stderr, "cpath: %s\n", msg.c_str());
  std::exit(rc);
}

std::string basename_of(const std::string& p) {
  const size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string dirname_of(const std::string& p) {
  const size_t s = p.rfind('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : p.substr(0, s);
}

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// The launcher's file, as execvp would find it.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_file(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string all = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t i = 0;
  while (i <= all.size()) {
    size_t j = all.find(':', i);
    if (j == std::string::npos) j = all.size();
    const std::string dir = j > i ? all.substr(i, j - i) : ".";
    const std::string cand = dir + "/" + name;
    if (is_file(cand) && access(cand.c_str(), X_OK) == 0) return cand;
    i = j + 1;
  }
  return "";
}

// libcpath.so next to this program: <bindir>/<relative libdir>, or the build tree's ../lib.
std::string default_lib() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string bindir = dirname_of(std::string(buf, static_cast<size_t>(n)));
  for (const char* rel : {CPATH_REL_LIBDIR, "../lib"}) {
    const std::string dir = real_path(bindir + "/" + rel);
    if (!dir.empty() && is_file(dir + "/libcpath.so")) return dir + "/libcpath.so";
  }
  return "";
}

Kind kind_from_name(const std::string& name) {
  if (name == "srun") return Kind::Srun;
  if (name.find("openmpi") != std::string::npos || name.rfind("orterun", 0) == 0 || name.rfind("prterun", 0) == 0 ||
      name.rfind("oshrun", 0) == 0)
    return Kind::OpenMpi;
  if (name.find("mpich") != std::string::npos || name.find("hydra") != std::string::npos) return Kind::Hydra;
  return Kind::Unknown;
}

// Output of `prog --version` (stdout and stderr), at most a few seconds and 64 KiB.
std::string version_text(const std::string& prog) {
  int fd[2];
  if (pipe(fd) != 0) return "";
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return "";
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    setpgid(0, 0);
    execl(prog.c_str(), prog.c_str(), "--version", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fd[1]);
  std::string out;
  const time_t deadline = time(nullptr) + 10;
  char buf[4096];
  while (out.size() < 65536) {
    struct pollfd p = {fd[0], POLLIN, 0};
    const int left = static_cast<int>(deadline - time(nullptr));
    if (left <= 0 || poll(&p, 1, left * 1000) <= 0) break;
    const ssize_t r = read(fd[0], buf, sizeof buf);
    if (r <= 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  close(fd[0]);
  kill(-pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  return out;
}

Kind detect(const std::string& launcher) {
  const std::string name = basename_of(launcher);
  Kind k = kind_from_name(name);
  if (k != Kind::Unknown) return k;
  const std::string path = find_program(launcher);
  if (path.empty()) return Kind::Unknown;
  // Debian's alternatives and most installs make mpirun/mpiexec a link to the real launcher.
  k = kind_from_name(basename_of(real_path(path)));
  if (k != Kind::Unknown) return k;
  // Only programs named like launchers are asked for their version (never the application).
  if (name.rfind("mpirun", 0) != 0 && name.rfind("mpiexec", 0) != 0) return Kind::Unknown;
  const std::string v = version_text(path);
  if (v.find("Open MPI") != std::string::npos || v.find("OpenRTE") != std::string::npos ||
      v.find("PRRTE") != std::string::npos)
    return Kind::OpenMpi;
  if (v.find("HYDRA") != std::string::npos || v.find("Hydra") != std::string::npos ||
      v.find("Intel(R) MPI") != std::string::npos)
    return Kind::Hydra;
  return Kind::Unknown;
}

// A word as a POSIX shell reads it back.
std::string shell_quote(const std::string& s) {
  if (s.empty()) return "''";
  bool plain = true;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./_-", c))) plain = false;
  if (plain) return s;
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}

int show(const std::string& what) {
  std::string file = what;
  struct stat st;
  if (stat(what.c_str(), &st) != 0) die(1, "show: " + what + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    file = what + "/report.txt";
    if (!is_file(file)) {
      if (is_file(what + "/report.json"))
        die(1, "show: " + what + " has report.json but no report.txt (the text report was written elsewhere)");
      die(1, "show: " + what + " is not a libcpath report directory (no report.txt)");
    }
  }
  FILE* f = std::fopen(file.c_str(), "r");
  if (!f) die(1, "show: " + file + ": " + std::strerror(errno));
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) std::fwrite(buf, 1, n, stdout);
  std::fclose(f);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string options, lib, forced;
  bool dry_run = false, print_lib = false;
  int i = 1;
  auto value = [&](const char* opt) -> std::string {
    if (i + 1 >= argc) die(2, std::string("option ") + opt + " needs a value (try cpath --help)");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
      std::printf("cpath (libcpath) %s\n", CPATH_VERSION);
      return 0;
    }
    if (a == "-n" || a == "--dry-run") dry_run = true;
    else if (a == "--print-lib") print_lib = true;
    else if (a == "-o" || a == "--options") options += (options.empty() ? "" : ",") + value(a.c_str());
    else if (a.rfind("--options=", 0) == 0) options += (options.empty() ? "" : ",") + a.substr(10);
    else if (a.rfind("-o", 0) == 0) options += (options.empty() ? "" : ",") + a.substr(2);
    else if (a == "--launcher") forced = value("--launcher");
    else if (a.rfind("--launcher=", 0) == 0) forced = a.substr(11);
    else if (a == "--lib") lib = value("--lib");
    else if (a.rfind("--lib=", 0) == 0) lib = a.substr(6);
    else die(2, "unknown option " + a + " (cpath's options come before the launcher; try cpath --help)");
  }

  if (i < argc && std::string(argv[i]) == "show" && !print_lib) {
    if (i + 2 != argc) die(2, "usage: cpath show DIR");
    return show(argv[i + 1]);
  }

  if (lib.empty()) {
    lib = default_lib();
    if (lib.empty()) die(2, "libcpath.so not found next to this program (" CPATH_REL_LIBDIR "); give it with --lib PATH");
  } else {
    const std::string r = real_path(lib);
    if (r.empty() || !is_file(r)) die(2, "--lib " + lib + ": no such file");
    lib = lib[0] == '/' ? lib : r;  // ranks may start elsewhere: always an absolute path
  }
  if (print_lib) {
    std::printf("%s\n", lib.c_str());
    return 0;
  }
  if (i >= argc) die(2, "no command to run (try cpath --help)");

  const char* env_opts = std::getenv("LIBCPATH_OPTIONS");
  std::string opts = env_opts ? env_opts : "";
  if (!options.empty()) opts += (opts.empty() ? "" : ",") + options;
  const bool have_opts = env_opts || !options.empty();
  const char* env_preload = std::getenv("LD_PRELOAD");
  const std::string preload = lib + (env_preload && *env_preload ? std::string(":") + env_preload : "");

  Kind kind = Kind::Unknown;
  if (!forced.empty()) {
    for (Kind k : {Kind::OpenMpi, Kind::Hydra, Kind::Srun, Kind::Env})
      if (forced == kind_name(k)) kind = k;
    if (kind == Kind::Unknown) die(2, "--launcher " + forced + ": expected openmpi, hydra, srun or env");
  } else {
    kind = detect(argv[i]);
  }
  if (kind == Kind::Unknown) {
    std::string cmd;
    for (int k = i; k < argc; ++k) cmd += " " + shell_quote(argv[k]);
    std::fprintf(stderr,
                 "cpath: '%s' is not a launcher cpath knows (Open MPI mpirun/mpiexec, MPICH or Intel MPI Hydra mpiexec, "
                 "Slurm srun).\n"
                 "cpath: preload libcpath in every rank yourself, e.g. with a launcher that passes its environment on:\n"
                 "  LD_PRELOAD=%s%s%s\n"
                 "cpath: or say how to pass it: cpath --launcher openmpi|hydra|srun|env ...\n",
                 argv[i], shell_quote(lib).c_str(),
                 have_opts ? (" LIBCPATH_OPTIONS=" + shell_quote(opts)).c_str() : "", cmd.c_str());
    return 2;
  }

  std::vector<std::string> cmd{argv[i]};
  std::vector<std::pair<std::string, std::string>> env;  // set in the launcher's environment
  switch (kind) {
    case Kind::OpenMpi:
      cmd.insert(cmd.end(), {"-x", "LD_PRELOAD=" + preload});
      if (have_opts) cmd.insert(cmd.end(), {"-x", "LIBCPATH_OPTIONS=" + opts});
      break;
    case Kind::Hydra:
      cmd.insert(cmd.end(), {"-genv", "LD_PRELOAD", preload});
      if (have_opts) cmd.insert(cmd.end(), {"-genv", "LIBCPATH_OPTIONS", opts});
      break;
    case Kind::Srun:
      // --export values end at commas: the options (which may hold commas) travel in the
      // environment that ALL exports.
      if (preload.find(',') != std::string::npos) die(2, "the preload path contains a comma, which srun --export cannot pass: " + preload);
      cmd.push_back("--export=ALL,LD_PRELOAD=" + preload);
      if (have_opts) env.emplace_back("LIBCPATH_OPTIONS", opts);
      break;
    case Kind::Env:
      env.emplace_back("LD_PRELOAD", preload);
      if (have_opts) env.emplace_back("LIBCPATH_OPTIONS", opts);
      break;
    default:
      break;
  }
  for (int k = i + 1; k < argc; ++k) cmd.push_back(argv[k]);

  if (dry_run) {
    std::string line;
    for (const auto& [k, v] : env) line += k + "=" + shell_quote(v) + " ";
    for (size_t k = 0; k < cmd.size(); ++k) line += (k ? " " : "") + shell_quote(cmd[k]);
    std::printf("%s\n", line.c_str());
    return 0;
  }
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (std::string& s : cmd) args.push_back(s.data());
  args.push_back(nullptr);
  execvp(args[0], args.data());
  die(127, std::string("cannot run ") + args[0] + ": " + std::strerror(errno));
}
