// printf-style formatting and byte sizes for the text writers.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cpath {

inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

inline double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

inline std::string size_str(uint64_t b) {
  if (b >= (1ull << 30)) return fmt("%.2f GiB", double(b) / double(1ull << 30));
  if (b >= (1ull << 20)) return fmt("%.2f MiB", double(b) / double(1ull << 20));
  if (b >= (1ull << 10)) return fmt("%.1f KiB", double(b) / 1024.0);
  return fmt("%llu B", static_cast<unsigned long long>(b));
}

}  // namespace cpath
