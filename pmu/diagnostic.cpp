#include "pmu/diagnostic.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <cstring>

namespace cpath::pmu::detail {

void diag(const char* fmt, ...) noexcept {
  const int saved_errno = errno;  // callers often print errno-derived text next
  char line[512];
  static const char kPrefix[] = "libcpath: ";
  std::memcpy(line, kPrefix, sizeof(kPrefix) - 1);
  size_t len = sizeof(kPrefix) - 1;

  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
  va_end(ap);
  if (n > 0) len += std::min(static_cast<size_t>(n), sizeof(line) - len - 2);

  // Keep it one line even if a message embeds a newline (e.g. from strerror
  // of an exotic locale or a path).
  for (size_t i = sizeof(kPrefix) - 1; i < len; ++i)
    if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
  line[len++] = '\n';

  size_t off = 0;
  while (off < len) {
    const ssize_t w = ::write(STDERR_FILENO, line + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  errno = saved_errno;
}

}  // namespace cpath::pmu::detail
