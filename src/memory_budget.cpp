#include "memory_budget.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fnv1a.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

// A small file read whole (/proc, /sys): "" when it cannot be read.
std::string read_small(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

uint64_t mem_available() {
  const std::string s = read_small("/proc/meminfo");
  const size_t at = s.find("MemAvailable:");
  return at == std::string::npos ? 0 : std::strtoull(s.c_str() + at + 13, nullptr, 10) * 1024;
}

// cgroup v2 headroom of this process's cgroup, 0 when there is no limit or no cgroup v2. A
// batch system's job limit is usually here, and exceeding it kills the job however much
// memory the node has.
uint64_t cgroup_headroom() {
  const std::string cg = read_small("/proc/self/cgroup");
  const size_t at = cg.find("0::");
  if (at == std::string::npos) return 0;
  std::string path = cg.substr(at + 3);
  path = path.substr(0, path.find('\n'));
  const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
  const std::string max = read_small((dir + "/memory.max").c_str());
  if (max.empty() || max.compare(0, 3, "max") == 0) return 0;
  const uint64_t limit = std::strtoull(max.c_str(), nullptr, 10);
  const uint64_t used = std::strtoull(read_small((dir + "/memory.current").c_str()).c_str(), nullptr, 10);
  return limit > used ? limit - used : 1;
}

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(b) / (1 << 20));
  return buf;
}

}  // namespace

uint64_t memory_available_to_rank(uint64_t option_bytes, int local_ranks, std::string* source) {
  if (option_bytes > 0) {
    if (source) *source = "analysis_mem=" + mib(option_bytes);
    return option_bytes;
  }
  const uint64_t avail = mem_available(), cg = cgroup_headroom();
  const bool by_cgroup = cg > 0 && (avail == 0 || cg < avail);
  const uint64_t free = by_cgroup ? cg : avail;
  const uint64_t ranks = static_cast<uint64_t>(std::max(1, local_ranks));
  if (free == 0) {
    // No /proc: nothing to go by, so no limit rather than a guess.
    if (source) *source = "auto: available memory unknown";
    return UINT64_MAX;
  }
  if (source)
    *source = "auto: half of " + mib(free) + (by_cgroup ? " left in the job's cgroup" : " available") + " shared by " +
              std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s") + " on the host";
  return free / 2 / ranks;
}

MemoryBudget plan_memory(uint64_t events, uint64_t option_bytes, uint64_t fixed, MPI_Comm comm) {
  MemoryBudget b;
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  // Ranks sharing this host, by host name: one yielding MPI_Allgather of a hash, where
  // MPI_Comm_split_type made a communicator (blocking collectives inside MPI: 0.2 s at 7
  // ranks on 2 cores under MPICH).
  int np = 1, local = 0;
  PMPI_Comm_size(comm, &np);
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  const uint64_t mine_host = fnv1a(name);
  std::vector<uint64_t> hosts(static_cast<size_t>(np), 0);
  tool_allgather(&mine_host, 1, MPI_UINT64_T, hosts.data(), 1, MPI_UINT64_T, comm);
  for (uint64_t h : hosts) local += h == mine_host;
  local = std::max(local, 1);
  std::string source;
  const uint64_t limit = memory_available_to_rank(option_bytes, local, &source);
  const uint64_t need = fixed + events * kAnalysisBytesPerEvent;
  // Scenarios one pass can carry: the what-if's peak (a base and a part per scenario) is
  // planned apart from the replay's, whose temporaries are gone by then. Passes before the
  // last also hold the replay's operations and partners (~40 bytes per event), which the
  // base's margin covers: lu_wavefront in 4 passes of 3 peaked at 88 of 150 MiB.
  const uint64_t whatif_base = fixed + events * kWhatIfBaseBytesPerEvent;
  uint64_t group = UINT32_MAX;
  if (limit != UINT64_MAX && events > 0)
    group = limit > whatif_base ? std::min<uint64_t>(UINT32_MAX, (limit - whatif_base) / (events * kWhatIfBytesPerScenarioEvent)) : 0;
  // Every rank the same plan: the smallest limit (and the words of the rank that has it), the
  // largest need, the smallest group; the replay runs only if it fits on every rank (a rank
  // with few events may also have little memory).
  struct {
    double v;
    int rank;
  } din{limit == UINT64_MAX ? 1e300 : static_cast<double>(limit), me}, dout{0, 0};
  tool_allreduce(&din, &dout, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
  // Signed, each figure capped at 2^63 - 1 (no limit: UINT64_MAX): MPICH 4.0.2 orders
  // unsigned 64-bit integers as signed in MPI_MIN and MPI_MAX, so one rank without a limit won
  // the minimum there.
  auto sig = [](uint64_t x) { return static_cast<long long>(std::min<uint64_t>(x, INT64_MAX)); };
  long long mine_s[3] = {sig(limit), sig(group), need <= limit ? 1 : 0}, mins_s[3] = {0, 0, 0};
  tool_allreduce(mine_s, mins_s, 3, MPI_LONG_LONG, MPI_MIN, comm);
  long long ne_s[2] = {sig(need), sig(events)}, maxes_s[2] = {0, 0};
  tool_allreduce(ne_s, maxes_s, 2, MPI_LONG_LONG, MPI_MAX, comm);
  const uint64_t unbounded = INT64_MAX;
  auto uns = [&](long long x) { return static_cast<uint64_t>(x) == unbounded ? UINT64_MAX : static_cast<uint64_t>(x); };
  unsigned long long mins[3] = {uns(mins_s[0]), uns(mins_s[1]), static_cast<unsigned long long>(mins_s[2])},
                     maxes[2] = {uns(maxes_s[0]), uns(maxes_s[1])};
  int len = me == dout.rank ? static_cast<int>(source.size()) : 0;
  tool_bcast(&len, 1, MPI_INT, dout.rank, comm);
  source.resize(static_cast<size_t>(len));
  if (len > 0) tool_bcast(&source[0], len, MPI_CHAR, dout.rank, comm);
  b.limit = mins[0];
  b.limit_source = source;
  b.need_max = maxes[0];
  b.events_max = maxes[1];
  b.analyse = mins[2] != 0;
  b.whatif_group = static_cast<uint32_t>(std::min<unsigned long long>(mins[1], UINT32_MAX));
  return b;
}

std::string memory_budget_note(const MemoryBudget& b, const std::string& dir) {
  if (b.analyse) return "";
  return "Analysis skipped: replaying " + std::to_string(b.events_max) + " events on one rank needs about " + mib(b.need_max) +
         ", more than the " + mib(b.limit) + " a rank may use (" + b.limit_source + "); " +
         (dir.empty() ? std::string("no report directory, so the traces were not kept")
                      : "each rank's trace is in " + dir + "/trace.<rank>.cpt: run cpath-ref " + dir + " where there is more memory") +
         ", or raise analysis_mem=";
}

}  // namespace cpath
