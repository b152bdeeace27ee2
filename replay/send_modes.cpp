#include "send_modes.h"

#include <cstdlib>

#include "fnv1a.h"

namespace cpath {

EagerLimits eager_limits_of(const RankTrace& t) {
  EagerLimits e;
  const std::string intra = t.meta_value("eager_limit_intra"), inter = t.meta_value("eager_limit_inter");
  if (!intra.empty()) e.intra = std::strtoull(intra.c_str(), nullptr, 10);
  if (!inter.empty()) e.inter = std::strtoull(inter.c_str(), nullptr, 10);
  // Traces without the inline limits (older ones, other writers): nothing held below the limits.
  const std::string ii = t.meta_value("eager_inline_intra"), ie = t.meta_value("eager_inline_inter");
  e.inline_intra = ii.empty() ? e.intra : std::strtoull(ii.c_str(), nullptr, 10);
  e.inline_inter = ie.empty() ? e.inter : std::strtoull(ie.c_str(), nullptr, 10);
  const std::string src = t.meta_value("eager_limit_source");
  if (!src.empty()) e.source = src;
  return e;
}

uint64_t host_id(const RankTrace& t) {
  return fnv1a(t.meta_value("host"));
}

}  // namespace cpath
