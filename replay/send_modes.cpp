#include "send_modes.h"

#include <cstdlib>

namespace cpath {

EagerLimits eager_limits_of(const RankTrace& t) {
  EagerLimits e;
  const std::string intra = t.meta_value("eager_limit_intra"), inter = t.meta_value("eager_limit_inter");
  if (!intra.empty()) e.intra = std::strtoull(intra.c_str(), nullptr, 10);
  if (!inter.empty()) e.inter = std::strtoull(inter.c_str(), nullptr, 10);
  const std::string src = t.meta_value("eager_limit_source");
  if (!src.empty()) e.source = src;
  return e;
}

uint64_t host_id(const RankTrace& t) {
  // FNV-1a: the same on every rank and in the reference.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : t.meta_value("host")) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace cpath
