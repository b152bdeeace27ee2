// One-line diagnostics on stderr for the pmu component.
#pragma once

namespace cpath::pmu::detail {

// Writes "libcpath: <message>\n" to fd 2 with a single write(2) so lines from
// several ranks or threads do not interleave. Never touches stdout, never
// allocates, never throws: it may run inside a signal-free but otherwise
// arbitrary application context.
void diag(const char* fmt, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace cpath::pmu::detail
