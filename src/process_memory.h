// Resident memory of this process from /proc/self/status: VmRSS now and the kernel's high-water
// mark VmHWM (read only; the application's own peak is never reset). The finalize pipeline
// notes both when it begins: the base of analysis.memory_per_rank_max_bytes.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace cpath {

struct ProcessMemory {
  size_t rss = 0, hwm = 0;  // bytes; both 0 when /proc is not readable
};

inline ProcessMemory read_process_memory() {
  ProcessMemory m;
  char buf[4096];
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return m;
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return m;
  buf[n] = '\0';
  const char* r = std::strstr(buf, "VmRSS:");
  const char* h = std::strstr(buf, "VmHWM:");
  if (!r || !h) return m;
  m.rss = std::strtoull(r + 6, nullptr, 10) * 1024;
  m.hwm = std::strtoull(h + 6, nullptr, 10) * 1024;
  return m;
}

// Set by the finalize pipeline when it begins (before the trace is decoded).
ProcessMemory& finalize_memory_start();

}  // namespace cpath
