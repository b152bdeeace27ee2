#include "send_modes.h"

#include <cstdlib>

#include "fnv1a.h"

namespace cpath {

namespace {

// A whole non-negative decimal number, as the sequential reference reads its meta data.
bool meta_u64(const std::string& v, uint64_t* out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = std::strtoull(v.c_str(), nullptr, 10);
  return true;
}

}  // namespace

EagerLimits eager_limits_of(const RankTrace& t) {
  EagerLimits e;
  const std::string intra = t.meta_value("eager_limit_intra"), inter = t.meta_value("eager_limit_inter");
  if (!intra.empty()) e.intra = std::strtoull(intra.c_str(), nullptr, 10);
  if (!inter.empty()) e.inter = std::strtoull(inter.c_str(), nullptr, 10);
  // Traces without the inline limits (older ones, other writers) or with unreadable ones:
  // nothing held below the eager limits.
  if (!meta_u64(t.meta_value("eager_inline_intra"), &e.inline_intra)) e.inline_intra = e.intra;
  if (!meta_u64(t.meta_value("eager_inline_inter"), &e.inline_inter)) e.inline_inter = e.inter;
  const std::string src = t.meta_value("eager_limit_source");
  if (!src.empty()) e.source = src;
  return e;
}

uint64_t host_id(const RankTrace& t) {
  return fnv1a(t.meta_value("host"));
}

}  // namespace cpath
