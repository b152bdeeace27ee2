#include "site_names.h"

#include <cinttypes>
#include <cstdio>

#include "module_map.h"
#include "pmu/symbolizer.h"

namespace cpath {

struct SiteNames::Impl {
  pmu::Symbolizer sym = pmu::Symbolizer::from_current_process();
  std::unordered_map<uint64_t, std::string> names, functions;
};

SiteNames::SiteNames() : impl_(new Impl) {}
pmu::Symbolizer& SiteNames::symbolizer() { return impl_->sym; }
SiteNames::~SiteNames() = default;

const std::string& SiteNames::name(uint64_t ra) {
  auto it = impl_->names.find(ra);
  if (it != impl_->names.end()) return it->second;
  // The call instruction precedes the return address.
  const pmu::SymbolInfo& s = impl_->sym.lookup(ra ? ra - 1 : 0);
  std::string out;
  if (!s.file.empty() && s.line) {
    out = basename_of(s.file) + ":" + std::to_string(s.line);
  } else if (s.has_symbol) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (%s)", s.module.c_str());
    out = s.function + buf;
  } else {
    out = s.function;
  }
  return impl_->names.emplace(ra, std::move(out)).first->second;
}

const std::string& SiteNames::function(uint64_t ra) {
  auto it = impl_->functions.find(ra);
  if (it != impl_->functions.end()) return it->second;
  const pmu::SymbolInfo& s = impl_->sym.lookup(ra ? ra - 1 : 0);
  return impl_->functions.emplace(ra, s.function).first->second;
}

}  // namespace cpath
