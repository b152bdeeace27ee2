#include "site_names.h"

#include <cinttypes>
#include <cstdio>

#include "call_path_table.h"
#include "module_map.h"
#include "pmu/symbolizer.h"

namespace cpath {

struct SiteNames::Impl {
  pmu::Symbolizer sym = pmu::Symbolizer::from_current_process();
  std::unordered_map<uint64_t, std::string> names, functions, path_names;
  const CallPaths* paths = nullptr;
  const std::string& address_name(uint64_t ra);
};

void SiteNames::use_call_paths(const CallPaths* paths) { impl_->paths = paths && paths->active() ? paths : nullptr; }

bool SiteNames::has_call_paths() const { return impl_->paths != nullptr; }
SiteNames::SiteNames() : impl_(new Impl) {}
pmu::Symbolizer& SiteNames::symbolizer() { return impl_->sym; }
SiteNames::~SiteNames() = default;

const std::string& SiteNames::name(uint64_t v) {
  if (!impl_->paths) return impl_->address_name(v);
  auto it = impl_->path_names.find(v);
  if (it != impl_->path_names.end()) return it->second;
  uint32_t n = 0;
  const uint64_t* f = impl_->paths->path(v, &n);
  std::string out = n ? "" : "(call path not recorded)";
  for (uint32_t i = 0; i < n; ++i) out += (i ? " \u2190 " : "") + impl_->address_name(f[i]);
  return impl_->path_names.emplace(v, std::move(out)).first->second;
}

std::vector<SiteFrame> SiteNames::frames(uint64_t v) {
  uint32_t n = 1;
  const uint64_t* f = &v;
  if (impl_->paths) f = impl_->paths->path(v, &n);
  std::vector<SiteFrame> out;
  for (uint32_t i = 0; i < n; ++i) {
    const pmu::SymbolInfo& s = impl_->sym.lookup(f[i] ? f[i] - 1 : 0);
    out.push_back({s.function, s.file.empty() ? std::string() : basename_of(s.file), s.line});
  }
  return out;
}

const std::string& SiteNames::Impl::address_name(uint64_t ra) {
  auto it = names.find(ra);
  if (it != names.end()) return it->second;
  // The call instruction precedes the return address.
  const pmu::SymbolInfo& s = sym.lookup(ra ? ra - 1 : 0);
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
  return names.emplace(ra, std::move(out)).first->second;
}

const std::string& SiteNames::function(uint64_t v) {
  uint64_t ra = v;
  if (impl_->paths) {
    uint32_t n = 0;
    const uint64_t* f = impl_->paths->path(v, &n);
    ra = n ? f[0] : 0;
  }
  auto it = impl_->functions.find(ra);
  if (it != impl_->functions.end()) return it->second;
  const pmu::SymbolInfo& s = impl_->sym.lookup(ra ? ra - 1 : 0);
  return impl_->functions.emplace(ra, s.function).first->second;
}

}  // namespace cpath
