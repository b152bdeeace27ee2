// JSON string quoting and number formatting for the JSON writers.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace cpath {
namespace json {

// Appends s quoted (the timeline writer builds long texts in place).
inline void q_to(std::string& o, const std::string& s) {
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

inline std::string q(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 2);
  q_to(o, s);
  return o;
}

inline std::string num(double d) {
  if (!std::isfinite(d)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", d);
  return b;
}

}  // namespace json
}  // namespace cpath
