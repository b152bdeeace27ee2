#include "inclusive_hotspots.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace cpath {

void inclusive_hotspots(const std::vector<pmu::Sample>& samples, const std::vector<uint64_t>& chains,
                        const std::vector<pmu::TimeInterval>& iv, const pmu::FunctionResolver& resolve,
                        pmu::HotspotTables* out) {
  // Few distinct addresses: resolve each once.
  std::unordered_map<uint64_t, uint32_t> fn_of;  // address -> function index
  std::vector<pmu::FunctionKey> fns;
  std::unordered_map<std::string, uint32_t> fn_index;  // function '\0' module -> index
  auto function_of = [&](uint64_t a) {
    auto it = fn_of.find(a);
    if (it != fn_of.end()) return it->second;
    pmu::FunctionKey k = resolve(a);
    const std::string key = k.function + '\0' + k.module;
    auto [f, fresh] = fn_index.emplace(key, static_cast<uint32_t>(fns.size()));
    if (fresh) fns.push_back(std::move(k));
    fn_of.emplace(a, f->second);
    return f->second;
  };
  std::vector<uint32_t> seen;
  for (const pmu::Sample& s : samples) {
    seen.clear();
    const uint32_t n = s.chain_len;
    if (n == 0 || static_cast<size_t>(s.chain_begin) + n > chains.size()) {
      seen.push_back(function_of(s.ip));
    } else {
      // The first entry is the sampled address, the others return addresses: address - 1 is
      // inside the calling function even when the call is its last instruction.
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t a = chains[s.chain_begin + i];
        seen.push_back(function_of(i == 0 ? a : a - 1));
      }
      std::sort(seen.begin(), seen.end());
      seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    }
    auto it = std::upper_bound(iv.begin(), iv.end(), s.time_ns,
                               [](uint64_t t, const pmu::TimeInterval& x) { return t < x.t0; });
    const bool on_path = it != iv.begin() && std::prev(it)->holds(s);
    for (uint32_t f : seen) {
      out->all.add(fns[f].function, fns[f].module, 1, s.weight_ns, s.cycles, s.instructions);
      if (on_path) out->inside.add(fns[f].function, fns[f].module, 1, s.weight_ns, s.cycles, s.instructions);
    }
  }
}

}  // namespace cpath
