// The perf events opened on one thread: a group (leader samples, members
// count) plus the leader's mmap'd ring buffer.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pmu/event_config.h"
#include "pmu/perf_record_decoder.h"

namespace cpath::pmu {

class EventGroup {
 public:
  EventGroup() = default;
  EventGroup(const EventGroup&) = delete;
  EventGroup& operator=(const EventGroup&) = delete;
  ~EventGroup() { close(); }

  // Opens config's events on thread `tid` (cpu = any), disabled, and maps a
  // ring of `ring_pages` data pages (a power of two). If the ring cannot be
  // mapped at that size (memlock limits), smaller powers of two are tried;
  // ring_pages() tells what was obtained. On failure returns false with the
  // errno in `err` and the failing step in `what`; nothing stays open.
  bool open(const EventConfig& config, pid_t tid, uint32_t ring_pages, int& err,
            std::string& what) noexcept;
  bool enable() noexcept;
  bool disable() noexcept;
  void close() noexcept;

  bool is_open() const noexcept { return leader_fd_ >= 0; }
  int leader_fd() const noexcept { return leader_fd_; }
  pid_t tid() const noexcept { return tid_; }
  uint32_t ring_pages() const noexcept { return ring_pages_; }

  // Decodes everything the kernel has published since the last call and
  // hands it back to the kernel. Only one thread may drain a group.
  void drain(const RecordLayout& layout, RecordSink& sink, DecodeCounts& counts) noexcept;

 private:
  int leader_fd_ = -1;
  std::vector<int> member_fds_;
  pid_t tid_ = 0;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  uint32_t ring_pages_ = 0;
  std::vector<uint8_t> scratch_;  // reassembles records that wrap the ring
};

}  // namespace cpath::pmu
