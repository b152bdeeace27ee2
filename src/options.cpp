#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cpath {

bool parse_size(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno || end == s.c_str() || s[0] == '-') return false;
  uint64_t mul = 1;
  std::string suffix(end);
  if (suffix == "" || suffix == "B" || suffix == "b") mul = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KiB") mul = 1ull << 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB") mul = 1ull << 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GiB") mul = 1ull << 30;
  else if (suffix == "T" || suffix == "t" || suffix == "TiB") mul = 1ull << 40;
  else return false;
  if (v > (~0ull) / mul) return false;
  *out = v * mul;
  return true;
}

static bool parse_bool(const std::string& s, bool* out) {
  if (s == "1" || s == "yes" || s == "on" || s == "true") return *out = true, true;
  if (s == "0" || s == "no" || s == "off" || s == "false") return *out = false, true;
  return false;
}

static bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

static bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno || *end) return false;
  *out = v;
  return true;
}

// "2G", "512M", "64K" when exact, else bytes: how a size is named back to the user.
static std::string size_text(uint64_t v) {
  const char* suffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  while (i < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++i;
  }
  return std::to_string(v) + suffix[i];
}

Options parse_options(const char* text, std::vector<std::string>* warnings) {
  Options o;
  if (!text) return o;
  auto warn = [&](const std::string& key, const std::string& val, const char* expect, const std::string& dflt) {
    if (warnings)
      warnings->push_back("option " + key + "=" + val + ": expected " + expect + "; using " + dflt);
  };
  std::string all(text);
  size_t i = 0;
  while (i < all.size()) {
    while (i < all.size() && (all[i] == ',' || all[i] == ' ' || all[i] == '\t' || all[i] == '\n')) ++i;
    size_t j = i;
    while (j < all.size() && all[j] != ',' && all[j] != ' ' && all[j] != '\t' && all[j] != '\n') ++j;
    if (j == i) break;
    std::string tok = all.substr(i, j - i);
    i = j;
    const size_t eq = tok.find('=');
    std::string key = tok.substr(0, eq);
    std::string val = eq == std::string::npos ? "1" : tok.substr(eq + 1);
    int64_t n = 0;
    double d = 0;
    bool b = false;
    uint64_t sz = 0;
    if (key == "out") {
      o.out_dir = val;
    } else if (key == "dump" || key == "analysis" || key == "report" || key == "sample" || key == "callchain" ||
               key == "path" || key == "matches" || key == "verbose" || key == "align" || key == "timeline") {
      bool* dst = key == "dump" ? &o.dump : key == "analysis" ? &o.analysis : key == "report" ? &o.report
                : key == "sample" ? &o.sample : key == "callchain" ? &o.callchain : key == "path" ? &o.path
                : key == "matches" ? &o.matches : key == "align" ? &o.align : key == "timeline" ? &o.timeline : &o.verbose;
      if (parse_bool(val, &b)) *dst = b;
      else warn(key, val, "0 or 1", *dst ? "1" : "0");
    } else if (key == "mem") {
      if (parse_size(val, &sz) && sz >= (1u << 20)) o.mem_cap = sz;
      else warn(key, val, "a size of at least 1M such as 512M or 2G", size_text(o.mem_cap));
    } else if (key == "timeline_max") {
      if (parse_size(val, &sz) && sz >= (64u << 10)) o.timeline_max = sz;
      else warn(key, val, "a size of at least 64K such as 16M or 1G", size_text(o.timeline_max));
    } else if (key == "chunk") {
      if (parse_size(val, &sz) && sz >= 4096 && sz <= (1ull << 30)) o.chunk = sz;
      else warn(key, val, "a size between 4K and 1G", size_text(o.chunk));
    } else if (key == "on_full") {
      if (val == "spill") o.spill = true;
      else if (val == "stop") o.spill = false;
      else warn(key, val, "spill or stop", o.spill ? "spill" : "stop");
    } else if (key == "spill_dir") {
      o.spill_dir = val;
    } else if (key == "clock") {
      if (val == "auto" || val == "tsc" || val == "monotonic") o.clock = val;
      else warn(key, val, "auto, tsc or monotonic", o.clock);
    } else if (key == "walk") {
      if (val == "jump") o.walk = WalkMode::Jump;
      else if (val == "sequential") o.walk = WalkMode::Sequential;
      else if (val == "check") o.walk = WalkMode::Check;
      else warn(key, val, "jump, sequential or check", "jump");
    } else if (key == "sampler") {
      if (val == "auto" || val == "perf" || val == "timer") o.sampler = val;
      else warn(key, val, "auto, perf or timer", o.sampler);
    } else if (key == "events") {
      o.events = val;
    } else if (key == "freq") {
      if (parse_int(val, 1, 100000, &n)) o.freq = static_cast<uint32_t>(n);
      else warn(key, val, "samples per second between 1 and 100000", std::to_string(o.freq));
    } else if (key == "period") {
      if (parse_int(val, 1, INT64_MAX, &n)) o.period = static_cast<uint64_t>(n);
      else warn(key, val, "a positive event count", o.period ? std::to_string(o.period) : "frequency mode");
    } else if (key == "top") {
      if (parse_int(val, 1, 100000, &n)) o.top = static_cast<uint32_t>(n);
      else warn(key, val, "a row count between 1 and 100000", std::to_string(o.top));
    } else if (key == "skew_ns") {
      if (parse_int(val, -1000000000000LL, 1000000000000LL, &n)) o.skew_ns = n;
      else warn(key, val, "nanoseconds", std::to_string(o.skew_ns));
    } else if (key == "drift_ppm") {
      if (parse_double(val, &d) && d > -10000 && d < 10000) o.drift_ppm = d;
      else warn(key, val, "parts per million between -10000 and 10000", std::to_string(o.drift_ppm));
    } else if (key == "eager") {
      const size_t colon = val.find(':');
      uint64_t lo = 0, hi = 0;
      if (parse_size(val.substr(0, colon), &lo) &&
          (colon == std::string::npos ? (hi = lo, true) : parse_size(val.substr(colon + 1), &hi))) {
        o.eager_set = true;
        o.eager_intra = lo;
        o.eager_inter = hi;
      } else {
        warn(key, val, "a size such as 4K, or INTRA:INTER such as 4K:64K", "the MPI library's (MPI_T)");
      }
    } else if (key == "sim_hosts") {
      if (parse_int(val, 0, 1 << 20, &n)) o.sim_hosts = static_cast<int32_t>(n);
      else warn(key, val, "a host count between 0 and 1048576", std::to_string(o.sim_hosts));
    } else if (key == "ranks_per_node") {
      if (parse_int(val, 0, 1 << 24, &n)) o.ranks_per_node = static_cast<int32_t>(n);
      else warn(key, val, "a rank count (0 = the hosts of the run)", std::to_string(o.ranks_per_node));
    } else if (warnings) {
      warnings->push_back("unknown option '" + key + "' ignored (see docs/options.md)");
    }
  }
  return o;
}

}  // namespace cpath
