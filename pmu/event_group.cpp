#include "pmu/event_group.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace cpath::pmu {
namespace {

int perf_event_open(const perf_event_attr& attr, pid_t tid, int group_fd) {
  // glibc has no wrapper; CLOEXEC so that exec'd helpers do not inherit them.
  const long fd = syscall(SYS_perf_event_open, &attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  return static_cast<int>(fd);
}

}  // namespace

bool EventGroup::open(const EventConfig& config, pid_t tid, uint32_t ring_pages, int& err,
                      std::string& what) noexcept {
  close();
  err = 0;
  try {
    if (config.events.empty()) {
      err = EINVAL;
      what = "no events configured";
      return false;
    }
    tid_ = tid;
    leader_fd_ = perf_event_open(config.events[0].attr, tid, -1);
    if (leader_fd_ < 0) {
      err = errno;
      what = "perf_event_open(" + config.events[0].name + ")";
      leader_fd_ = -1;
      return false;
    }
    member_fds_.reserve(config.events.size() - 1);
    for (size_t i = 1; i < config.events.size(); ++i) {
      const int fd = perf_event_open(config.events[i].attr, tid, leader_fd_);
      if (fd < 0) {
        err = errno;
        what = "perf_event_open(" + config.events[i].name + ")";
        close();
        return false;
      }
      member_fds_.push_back(fd);
    }

    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    uint32_t pages = 1;
    while (pages < ring_pages && pages < (1u << 20)) pages <<= 1;
    for (;;) {
      const size_t len = (size_t{pages} + 1) * page;  // +1: the control page
      void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, leader_fd_, 0);
      if (m != MAP_FAILED) {
        // A forked child must not share (and could not drain) our rings.
        madvise(m, len, MADV_DONTFORK);
        map_ = m;
        map_len_ = len;
        ring_pages_ = pages;
        return true;
      }
      // EPERM/ENOMEM: over perf_event_mlock_kb + RLIMIT_MEMLOCK. A smaller
      // ring loses samples sooner but beats not sampling this thread.
      if ((errno != EPERM && errno != ENOMEM) || pages == 1) {
        err = errno;
        what = "mmap of the perf ring buffer";
        close();
        return false;
      }
      pages >>= 1;
    }
  } catch (...) {
    err = ENOMEM;
    what = "allocation";
    close();
    return false;
  }
}

bool EventGroup::enable() noexcept {
  return leader_fd_ >= 0 && ioctl(leader_fd_, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0;
}

bool EventGroup::disable() noexcept {
  return leader_fd_ >= 0 && ioctl(leader_fd_, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) == 0;
}

void EventGroup::close() noexcept {
  if (map_ != nullptr) munmap(map_, map_len_);
  map_ = nullptr;
  map_len_ = 0;
  ring_pages_ = 0;
  // Members before the leader, mirroring creation.
  for (int fd : member_fds_) ::close(fd);
  member_fds_.clear();
  if (leader_fd_ >= 0) ::close(leader_fd_);
  leader_fd_ = -1;
}

void EventGroup::drain(const RecordLayout& layout, RecordSink& sink, DecodeCounts& counts) noexcept {
  if (map_ == nullptr) return;
  auto* meta = static_cast<perf_event_mmap_page*>(map_);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // data_offset/data_size exist since Linux 4.1; older kernels leave them 0.
  const size_t data_off = meta->data_offset != 0 ? static_cast<size_t>(meta->data_offset) : page;
  const size_t data_size =
      meta->data_size != 0 ? static_cast<size_t>(meta->data_size) : size_t{ring_pages_} * page;
  const auto* data = static_cast<const uint8_t*>(map_) + data_off;

  // Acquire pairs with the kernel's publication of head; release on tail
  // tells it the bytes before are free again.
  const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const uint64_t tail = meta->data_tail;
  if (head == tail) return;
  const uint64_t new_tail = decode_ring(data, data_size, tail, head, layout, sink, counts, scratch_);
  __atomic_store_n(&meta->data_tail, new_tail, __ATOMIC_RELEASE);
}

}  // namespace cpath::pmu
