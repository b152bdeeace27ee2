#include "options.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
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

// Physical memory of the node, 0 if unknown.
static uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

// Ranks on this node, from the launcher's environment (1 if it does not say).
static uint64_t local_ranks() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"}) {
    const char* s = std::getenv(v);
    if (s && std::atoi(s) > 0) return static_cast<uint64_t>(std::atoi(s));
  }
  return 1;
}

namespace {

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }
bool is_quote(char c) { return c == '"' || c == '\''; }

// A quote opens a quoted span only where a value or a target begins: at `from` (a token's or an
// item's start), after '=' or after '+' (whatif="A B"+rank1:0.5). Elsewhere it is an ordinary
// character, so that values such as out=Bob's run as before.
bool opens_quote(const std::string& s, size_t from, size_t j) {
  return is_quote(s[j]) && (j == from || s[j - 1] == '=' || s[j - 1] == '+');
}

// Calls f(position) for every character of s outside quoted spans; false if a quote is not closed.
template <class F>
bool scan_unquoted(const std::string& s, F&& f) {
  for (size_t j = 0; j < s.size(); ++j) {
    if (opens_quote(s, 0, j)) {
      const size_t k = s.find(s[j], j + 1);
      if (k == std::string::npos) return false;
      j = k;
      continue;
    }
    f(j);
  }
  return true;
}

size_t find_unquoted(const std::string& s, char c) {
  size_t at = std::string::npos;
  scan_unquoted(s, [&](size_t j) {
    if (at == std::string::npos && s[j] == c) at = j;
  });
  return at;
}

// The end of the token that begins at i: the first separator outside quotes. *unclosed: a
// quote was not closed, and the token runs to the end of the text.
size_t token_end(const std::string& s, size_t i, bool* unclosed) {
  *unclosed = false;
  for (size_t j = i; j < s.size(); ++j) {
    if (is_separator(s[j])) return j;
    if (opens_quote(s, i, j)) {
      const size_t k = s.find(s[j], j + 1);
      if (k == std::string::npos) {
        *unclosed = true;
        return s.size();
      }
      j = k;
    }
  }
  return s.size();
}

// "text" or 'text' as a whole: text; anything else as it is.
std::string unquoted(const std::string& v) {
  if (v.size() >= 2 && is_quote(v[0]) && v.back() == v[0] && v.find(v[0], 1) == v.size() - 1) return v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

std::string WhatIfItem::text() const {
  std::string t;
  for (size_t k = 0; k < targets.size(); ++k) t += (k ? "+" : "") + targets[k];
  return t;
}

bool parse_whatif_item(const std::string& item, WhatIfItem* out, std::string* why) {
  size_t colon = std::string::npos;
  std::vector<size_t> plus;
  if (!scan_unquoted(item, [&](size_t j) {
        if (item[j] == ':') colon = j;
        else if (item[j] == '+') plus.push_back(j);
      })) {
    *why = "a closing quote";
    return false;
  }
  if (colon == std::string::npos || colon == 0) {
    *why = "TARGET:FACTOR such as binvcrhs_:0.5, rank3:0.8 or \"compute between ...\":0.5 (a name with spaces in quotes)";
    return false;
  }
  char* endp = nullptr;
  const std::string fs = item.substr(colon + 1);
  const double f = std::strtod(fs.c_str(), &endp);
  if (fs.empty() || !endp || *endp || !(f >= 0) || f > 1e6) {
    *why = "a FACTOR after the last ':' between 0 and 1e6 (0.5: 2x faster, 0: removed)";
    return false;
  }
  WhatIfItem w;
  w.factor = f;
  size_t p = 0;
  plus.push_back(colon);
  for (size_t q : plus) {
    if (q < p) continue;  // a '+' after the factor's ':' (an exponent sign)
    std::string t = item.substr(p, q - p);
    p = q + 1;
    if (!t.empty() && is_quote(t[0])) {
      if (t.size() < 2 || t.back() != t[0]) {
        *why = "nothing between a target's closing quote and the next '+' or ':'";
        return false;
      }
      t = t.substr(1, t.size() - 2);
    }
    if (t.empty()) {
      *why = "a target before each '+' and the ':' (an empty one was given)";
      return false;
    }
    w.targets.push_back(t);
  }
  *out = std::move(w);
  return true;
}

std::string whatif_option_text(const std::vector<std::string>& targets, double factor) {
  std::string o = "whatif=";
  for (size_t k = 0; k < targets.size(); ++k) {
    const std::string& t = targets[k];
    bool plain = !t.empty() && !is_quote(t[0]);
    for (char c : t) plain = plain && !is_separator(c) && c != '+' && c != ':' && c != '=';
    const char q = t.find('"') == std::string::npos ? '"' : '\'';
    o += (k ? "+" : "") + (plain ? t : q + t + q);
  }
  char f[32];
  std::snprintf(f, sizeof f, ":%.6g", factor);
  return o + f;
}

Options parse_options(const char* text, std::vector<std::string>* warnings) {
  Options o;
  if (!text) return o;
  auto warn = [&](const std::string& key, const std::string& val, const char* expect, const std::string& dflt) {
    if (warnings)
      warnings->push_back("option " + key + "=" + val + ": expected " + expect + "; using " + dflt);
  };
  auto clamped = [&](const std::string& key, const std::string& val, const std::string& why, const std::string& used) {
    if (warnings) warnings->push_back("option " + key + "=" + val + ": " + why + "; using " + used);
  };
  std::string all(text);
  bool chunk_given = false;
  size_t i = 0;
  bool whatif_list = false;  // the previous token was a whatif= item
  while (i < all.size()) {
    while (i < all.size() && is_separator(all[i])) ++i;
    bool unclosed = false;
    const size_t j = token_end(all, i, &unclosed);
    if (j == i) break;
    std::string tok = all.substr(i, j - i);
    i = j;
    const bool last_whatif = whatif_list;
    whatif_list = false;
    const size_t eq = find_unquoted(tok, '=');
    std::string key = tok.substr(0, eq);
    if (unclosed) {
      // Where it was meant to close is anyone's guess: say so once rather than read the rest.
      if (warnings)
        warnings->push_back("option " + tok + ": a quote is not closed; this and the options after it were ignored");
      break;
    }
    std::string val = eq == std::string::npos ? "1" : tok.substr(eq + 1);
    // Scenario items keep their quotes until parse_whatif_item (a target may be quoted alone).
    if (key != "whatif" && !(eq == std::string::npos && last_whatif)) val = unquoted(val);
    int64_t n = 0;
    double d = 0;
    bool b = false;
    uint64_t sz = 0;
    if (key == "out") {
      o.out_dir = val;
    } else if (key == "dump" || key == "analysis" || key == "sample" || key == "callchain" || key == "path" ||
               key == "matches" || key == "verbose" || key == "align" || key == "timeline" || key == "quiet" ||
               key == "overwrite" || key == "crash" || key == "eager_cache") {
      bool* dst = key == "dump" ? &o.dump : key == "analysis" ? &o.analysis : key == "sample" ? &o.sample
                : key == "callchain" ? &o.callchain : key == "path" ? &o.path : key == "matches" ? &o.matches
                : key == "align" ? &o.align : key == "timeline" ? &o.timeline : key == "quiet" ? &o.quiet
                : key == "overwrite" ? &o.overwrite : key == "crash" ? &o.crash
                : key == "eager_cache" ? &o.eager_cache : &o.verbose;
      if (parse_bool(val, &b)) *dst = b;
      else warn(key, val, "0 or 1", *dst ? "1" : "0");
    } else if (key == "mem") {
      // More than half of the node's memory shared by its ranks would let the trace push the
      // application into swap or the OOM killer.
      const uint64_t ram = physical_memory(), most = ram ? std::max<uint64_t>(kMinMem, ram / 2 / local_ranks()) : 0;
      if (!parse_size(val, &sz)) warn(key, val, "a size such as 512M or 2G", size_text(o.mem_cap));
      else if (sz < kMinMem) clamped(key, val, "below the 1M minimum", size_text(o.mem_cap = kMinMem));
      else if (most && sz > most)
        clamped(key, val, "more than half of this node's memory per rank", size_text(o.mem_cap = most & ~((1ull << 20) - 1)));
      else o.mem_cap = sz;
    } else if (key == "analysis_mem") {
      if (val == "auto") o.analysis_mem = 0;
      else if (parse_size(val, &sz) && sz >= kMinMem) o.analysis_mem = sz;
      else warn(key, val, "auto or a size of at least 1M such as 512M or 4G", o.analysis_mem ? size_text(o.analysis_mem) : "auto");
    } else if (key == "timeline_mpiio") {
      if (parse_size(val, &sz)) o.timeline_mpiio = sz;
      else warn(key, val, "a size such as 32M (0: always MPI-IO)", size_text(o.timeline_mpiio));
    } else if (key == "timeline_max") {
      if (parse_size(val, &sz) && sz >= (64u << 10)) o.timeline_max = sz;
      else warn(key, val, "a size of at least 64K such as 16M or 1G", size_text(o.timeline_max));
    } else if (key == "chunk") {
      if (!parse_size(val, &sz)) warn(key, val, "a size between 4K and 1G", size_text(o.chunk));
      else if (sz < kMinChunk) clamped(key, val, "below the 4K minimum", size_text(o.chunk = kMinChunk));
      else if (sz > kMaxChunk) clamped(key, val, "above the 1G maximum", size_text(o.chunk = kMaxChunk));
      else o.chunk = sz;
      chunk_given = true;
    } else if (key == "poll_merge") {
      if (parse_int(val, 0, 1000000000, &n)) o.poll_merge_ns = static_cast<uint64_t>(n);
      else warn(key, val, "nanoseconds between 0 (off) and 1000000000", std::to_string(o.poll_merge_ns));
    } else if (key == "poll_cpu") {
      if (parse_int(val, 0, 1000000000, &n)) o.poll_cpu_ns = static_cast<uint64_t>(n);
      else warn(key, val, "nanoseconds between 0 (off) and 1000000000", std::to_string(o.poll_cpu_ns));
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
      if (!parse_int(val, INT64_MIN, INT64_MAX, &n)) warn(key, val, "samples per second", std::to_string(o.freq));
      else if (n < 1) clamped(key, val, "below 1 sample per second", std::to_string(o.freq = 1));
      else if (n > kMaxFreq)
        clamped(key, val, "faster than the application can afford", std::to_string(o.freq = kMaxFreq));
      else o.freq = static_cast<uint32_t>(n);
    } else if (key == "period") {
      // The sampler never samples faster than freq= per thread whatever the period says.
      if (parse_int(val, 1, INT64_MAX, &n)) o.period = static_cast<uint64_t>(n);
      else warn(key, val, "a positive event count", o.period ? std::to_string(o.period) : "frequency mode");
    } else if (key == "top") {
      if (!parse_int(val, INT64_MIN, INT64_MAX, &n)) warn(key, val, "a row count", std::to_string(o.top));
      else if (n < 1) clamped(key, val, "below 1 row", std::to_string(o.top = 1));
      else if (n > kMaxTop) clamped(key, val, "more rows than a report can use", std::to_string(o.top = kMaxTop));
      else o.top = static_cast<uint32_t>(n);
    } else if (key == "skew_ns") {
      constexpr int64_t kMaxSkew = 100000000000LL;  // 100 s
      if (!parse_int(val, INT64_MIN, INT64_MAX, &n)) warn(key, val, "nanoseconds", std::to_string(o.skew_ns));
      else if (n < -kMaxSkew || n > kMaxSkew)
        clamped(key, val, "outside +-100 s", std::to_string(o.skew_ns = n < 0 ? -kMaxSkew : kMaxSkew));
      else o.skew_ns = n;
    } else if (key == "drift_ppm") {
      if (!parse_double(val, &d) || d != d) warn(key, val, "parts per million", std::to_string(o.drift_ppm));
      else if (d < -10000 || d > 10000)
        clamped(key, val, "outside +-10000 ppm", std::to_string(o.drift_ppm = d < 0 ? -10000.0 : 10000.0));
      else o.drift_ppm = d;
    } else if (key == "report") {
      if (val == "stdout" || val == "1" || val == "yes" || val == "on" || val == "true") o.report = true, o.report_stderr = false;
      else if (val == "stderr") o.report = true, o.report_stderr = true;
      else if (val == "file" || val == "0" || val == "no" || val == "off" || val == "false") o.report = false;
      else warn(key, val, "stdout, stderr or file (1 or 0)", o.report ? (o.report_stderr ? "stderr" : "stdout") : "file");
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
    } else if (key == "stack") {
      if (parse_int(val, 1, 48, &n)) o.stack = static_cast<int32_t>(n);
      else warn(key, val, "a frame count between 1 and 48", std::to_string(o.stack));
    } else if (key == "skip") {
      o.skip = val;
    } else if (!o.skip.empty() && eq == std::string::npos && key.find(".so") != std::string::npos) {
      // skip=libpetsc.so,libhypre.so: options are comma-separated too, so a bare library name
      // right after skip= continues its list.
      o.skip += ":" + key;
    } else if (key == "ranks_per_node") {
      if (parse_int(val, 0, 1 << 24, &n)) o.ranks_per_node = static_cast<int32_t>(n);
      else warn(key, val, "a rank count (0 = the hosts of the run)", std::to_string(o.ranks_per_node));
    } else if (key == "whatif" || (eq == std::string::npos && last_whatif && tok.find(':') != std::string::npos)) {
      // whatif=TARGET:FACTOR[,TARGET:FACTOR...]: the list goes on after the commas.
      std::string item = eq == std::string::npos ? tok : val;
      WhatIfItem w;
      std::string why;
      if (item == "0") {
        o.whatif_on = false;
      } else if (item != "1" && parse_whatif_item(item, &w, &why)) {
        o.whatif.push_back(std::move(w));
      } else if (item != "1") {
        // An activity name given without quotes falls apart at its spaces: when the words up
        // to the next comma or key=value make an item, that is one mistake, said once with
        // the quoted form to use (and the words are not read as options).
        std::string words = item;
        size_t k = i;
        while (find_unquoted(item, ':') == std::string::npos && k < all.size() && all[k] != ',') {
          size_t b = k;
          while (b < all.size() && all[b] != ',' && is_separator(all[b])) ++b;
          if (b >= all.size() || all[b] == ',') break;
          bool open = false;
          const size_t e = token_end(all, b, &open);
          const std::string next = all.substr(b, e - b);
          if (open || find_unquoted(next, '=') != std::string::npos) break;
          words += " " + next;
          k = e;
        }
        WhatIfItem joined;
        std::string unused;
        if (words != item && parse_whatif_item(words, &joined, &unused)) {
          i = k;
          warn("whatif", words, ("a name with spaces in quotes: " + whatif_option_text(joined.targets, joined.factor)).c_str(),
               "no such scenario");
        } else {
          warn("whatif", item, why.c_str(), "no such scenario");
        }
      }
      whatif_list = true;
      continue;
    } else if (key == "whatif_defaults") {
      if (parse_bool(val, &b)) o.whatif_defaults = b;
      else warn(key, val, "0 or 1", o.whatif_defaults ? "1" : "0");
    } else if (key == "whatif_stall") {
      if (parse_int(val, 1, 3600, &n)) o.whatif_stall_s = static_cast<double>(n);
      else warn(key, val, "seconds between 1 and 3600", std::to_string(static_cast<int>(o.whatif_stall_s)));
    } else if (key == "whatif_time") {
      if (val == "auto") o.whatif_time_s = 0;
      else if (parse_double(val, &d) && d > 0 && d <= 86400) o.whatif_time_s = d;
      else warn(key, val, "seconds (above 0, at most 86400) or auto", o.whatif_time_s > 0 ? std::to_string(o.whatif_time_s) : "auto");
    } else if (key == "whatif_top") {
      if (parse_int(val, 0, 100, &n)) o.whatif_top = static_cast<uint32_t>(n);
      else warn(key, val, "a count between 0 and 100", std::to_string(o.whatif_top));
    } else if (warnings) {
      warnings->push_back("unknown option '" + key + "' ignored (see docs/options.md)");
    }
  }
  // A chunk larger than a quarter of the cap would make every chunk spill (or stop) at once.
  if (o.chunk > o.mem_cap / 4) {
    const uint64_t c = std::max<uint64_t>(kMinChunk, (o.mem_cap / 4) & ~(kMinChunk - 1));
    if (warnings && chunk_given)
      warnings->push_back("option chunk=" + size_text(o.chunk) + ": more than a quarter of mem=" + size_text(o.mem_cap) +
                          "; using " + size_text(c));
    o.chunk = c;
  }
  return o;
}

}  // namespace cpath
