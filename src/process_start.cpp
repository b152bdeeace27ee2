#include "process_start.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace cpath {

int64_t process_age_ns() {
  // Field 22 of /proc/self/stat is the start time in clock ticks since boot; the boot-time
  // clock of the same kernel measures "now" on that scale.
  char buf[1024];
  const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // the command name may contain spaces and parentheses
  if (!p) return -1;
  // After ")": field 3 (state) ... field 22 (starttime).
  for (int field = 2; field < 22 && p; ++field) p = std::strchr(p + 1, ' ');
  if (!p) return -1;
  char* end = nullptr;
  const unsigned long long start_ticks = std::strtoull(p + 1, &end, 10);
  const long hz = sysconf(_SC_CLK_TCK);
  timespec now;
  if (end == p + 1 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  const int64_t start_ns = static_cast<int64_t>(start_ticks) * (1000000000 / hz);
  const int64_t age = now_ns - start_ns;
  // A negative or implausible age (a container's clock namespace) is no answer.
  return age >= 0 && age < 86400ll * 365 * 1000000000 ? age : -1;
}

}  // namespace cpath
