// JSON text helpers shared by the writers (report.json, timeline.json).
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace cpath {

inline void json_quote_to(std::string& o, const std::string& s) {
  o += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  o += '"';
}

inline std::string json_quote(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 2);
  json_quote_to(o, s);
  return o;
}

inline std::string json_num(double d) {
  if (!std::isfinite(d)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", d);
  return b;
}

}  // namespace cpath
