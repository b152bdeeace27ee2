#include "oversubscription.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "tool_collectives.h"

namespace cpath {

Oversubscription detect_oversubscription(const std::vector<std::string>& hosts, MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  // The CPUs this rank may run on: its affinity mask (a cpuset or container narrower than
  // the host), else every online CPU. A host's CPUs are the union over its ranks.
  constexpr int kWords = CPU_SETSIZE / 64;
  uint64_t mine[kWords] = {};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) mine[c / 64] |= uint64_t{1} << (c % 64);
  } else {
    const long n = std::min<long>(sysconf(_SC_NPROCESSORS_ONLN), CPU_SETSIZE);
    for (long c = 0; c < n; ++c) mine[c / 64] |= uint64_t{1} << (c % 64);
  }
  std::vector<uint64_t> all(me == 0 ? kWords * static_cast<size_t>(np) : 0);
  tool_gather(mine, kWords, MPI_UINT64_T, all.data(), kWords, MPI_UINT64_T, 0, comm);
  Oversubscription o;
  if (me != 0 || hosts.size() != static_cast<size_t>(np)) return o;
  struct Host {
    int ranks = 0, cpus = 0;
    uint64_t mask[kWords] = {};
  };
  std::map<std::string, Host> by_host;
  for (int r = 0; r < np; ++r) {
    Host& h = by_host[hosts[static_cast<size_t>(r)]];
    ++h.ranks;
    for (int w = 0; w < kWords; ++w) h.mask[w] |= all[static_cast<size_t>(r) * kWords + static_cast<size_t>(w)];
  }
  for (auto& e : by_host)
    for (int w = 0; w < kWords; ++w) e.second.cpus += __builtin_popcountll(e.second.mask[w]);
  const std::pair<const std::string, Host>* worst = nullptr;
  for (const auto& e : by_host)
    if (e.second.cpus > 0 && e.second.ranks > e.second.cpus &&
        (!worst || e.second.ranks * worst->second.cpus > worst->second.ranks * e.second.cpus))
      worst = &e;
  if (!worst) return o;
  o.oversubscribed = true;
  o.line = "Oversubscribed: " + std::to_string(worst->second.ranks) + " ranks on host " + worst->first + " with " +
           std::to_string(worst->second.cpus) + " CPUs" +
           (by_host.size() > 1 ? " (the most crowded host)" : "") +
           ": ranks take turns on the CPUs, so waiting shows as MPI time and yields (e.g. __sched_yield)";
  return o;
}

}  // namespace cpath
