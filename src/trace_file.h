// The per-rank trace file written with option dump=1 (format: docs/trace-format.md), and its
// reader. The record streams are stored exactly as recorded.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rank_trace.h"

namespace cpath {

constexpr char kTraceMagic[8] = {'C', 'P', 'A', 'T', 'H', 'T', 'R', '\0'};
constexpr uint32_t kTraceVersion = 1;
enum : uint32_t { kSecMeta = 1, kSecClock = 2, kSecComms = 3, kSecModules = 4, kSecThread = 5, kSecTopology = 6 };

struct ThreadStream {
  uint32_t thread = 0;
  std::vector<std::pair<const uint8_t*, size_t>> spans;  // concatenated in order
};

// Writes `t`'s metadata and the raw streams. Returns false with a message on failure.
bool write_trace_file(const std::string& path, const RankTrace& t, const std::vector<ThreadStream>& streams,
                      std::string* error);
// Reads and decodes a trace file.
bool read_trace_file(const std::string& path, RankTrace* t, std::string* error);

}  // namespace cpath
