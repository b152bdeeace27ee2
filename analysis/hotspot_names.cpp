#include "hotspot_names.h"

#include <cctype>
#include <unordered_map>

#include "call_info.h"

namespace cpath {

namespace {

bool all_digits(const std::string& s, size_t from, size_t to) {
  if (from >= to) return false;
  for (size_t i = from; i < to; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// Strips one trailing ".<clone>" or ".<clone>.<N>"; true if it did.
bool strip_one(std::string& s) {
  static const char* const kClones[] = {"constprop", "isra", "part", "cold", "lto_priv", "clone", "localalias"};
  size_t end = s.size();
  // Optional numeric tail.
  const size_t dot = s.rfind('.');
  if (dot != std::string::npos && dot > 0 && all_digits(s, dot + 1, end)) end = dot;
  const size_t dot2 = s.rfind('.', end - 1);
  if (dot2 == std::string::npos || dot2 == 0) return false;
  const std::string word = s.substr(dot2 + 1, end - dot2 - 1);
  for (const char* c : kClones)
    if (word == c) {
      s.resize(dot2);
      return true;
    }
  return false;
}

}  // namespace

std::string strip_clone_suffix(const std::string& function) {
  std::string s = function;
  // Symbol versions: "__pthread_mutex_lock@GLIBC_2.2.5", "memcpy@@GLIBC_2.14".
  const size_t at = s.find('@');
  if (at != std::string::npos && at > 0) s.resize(at);
  // Demangled C++: "f(int) [clone .constprop.0] [clone .isra.0]".
  for (size_t p; (p = s.find(" [clone .")) != std::string::npos;) {
    const size_t close = s.find(']', p);
    s.erase(p, close == std::string::npos ? std::string::npos : close - p + 1);
  }
  while (strip_one(s)) {
  }
  return s;
}

std::string canonical_mpi_name(const std::string& symbol) {
  static const std::unordered_map<std::string, std::string> by_lower = [] {
    std::unordered_map<std::string, std::string> m;
    for (unsigned c = 1; c < kNumCalls; ++c) {
      std::string low = kCallInfo[c].name;
      for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      m.emplace(low, kCallInfo[c].name);
    }
    return m;
  }();
  std::string s = symbol;
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto trim_underscores = [&] {
    while (!s.empty() && s.back() == '_') s.pop_back();
  };
  trim_underscores();
  for (const char* suffix : {"_f08ts", "_f08", "_cdesc"}) {
    const std::string suf(suffix);
    if (s.size() > suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0) {
      s.resize(s.size() - suf.size());
      trim_underscores();
      break;
    }
  }
  if (s.compare(0, 5, "pmpi_") == 0) s.erase(0, 1);
  auto it = by_lower.find(s);
  return it == by_lower.end() ? std::string() : it->second;
}

pmu::FunctionKey hotspot_key(const pmu::SymbolInfo& si, bool own_module) {
  pmu::FunctionKey k;
  k.module = si.module;
  if (own_module) {
    // Wrappers (and what they inline: clock reads, the record writer) are part of the call.
    k.mpi_call = si.has_symbol ? canonical_mpi_name(strip_clone_suffix(si.function)) : std::string();
    k.function = k.mpi_call.empty() ? "[libcpath]" : k.mpi_call;
    k.tool = k.mpi_call.empty();
    return k;
  }
  // No symbol: one row per module rather than one per address.
  k.function = si.has_symbol ? strip_clone_suffix(si.function) : "[unknown]";
  return k;
}

}  // namespace cpath
