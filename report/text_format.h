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
  va_list ap, again;
  va_start(ap, f);
  va_copy(again, ap);
  const int n = std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  std::string out = buf;
  // Call paths (stack=N) make rows longer than the buffer: never cut one.
  if (n >= static_cast<int>(sizeof buf)) {
    out.assign(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&out[0], out.size(), f, again);
    out.resize(static_cast<size_t>(n));
  }
  va_end(again);
  return out;
}

// Characters of a UTF-8 string (continuation bytes not counted).
inline size_t utf8_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// `s` in a column of `width` characters: cut or padded with spaces, counting UTF-8 characters
// (call paths contain "←"), so a cut never splits one. The same as "%-W.Ws" for ASCII.
inline std::string column(const std::string& s, size_t width) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars == width) break;
    ++chars;
  }
  return s.substr(0, i) + std::string(width - chars, ' ');
}

inline double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

inline std::string size_str(uint64_t b) {
  if (b >= (1ull << 30)) return fmt("%.2f GiB", double(b) / double(1ull << 30));
  if (b >= (1ull << 20)) return fmt("%.2f MiB", double(b) / double(1ull << 20));
  if (b >= (1ull << 10)) return fmt("%.1f KiB", double(b) / 1024.0);
  return fmt("%llu B", static_cast<unsigned long long>(b));
}

}  // namespace cpath
