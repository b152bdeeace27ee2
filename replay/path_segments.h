// A rank's critical-path segments, and the compact form the analysis keeps them in.
//
// The measured path is read by every analysis after the walk (path profile, wait states,
// hotspots, regions, the path over time, the timeline), so it lives until the timeline is
// written. As 32-byte Segments a path that stays on one rank (an imbalanced code: the rank
// everyone waits for) cost 64 bytes per event there, and was that rank's peak (halo_bench 100k
// on one rank: the walk took the analysis from 153 to 217 bytes per event). Neighbouring
// segments share their edge and their events are close, so each is kept as a few bytes of
// deltas: about 5 bytes instead of 32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cpath {

constexpr uint32_t kNoSegmentPrev = ~0u;  // kNoEvent

enum class SegmentKind : uint8_t {
  Compute,  // between the end of `prev` and the begin of `event` (outside MPI)
  Mpi,      // inside MPI call `event`
  Startup   // before MPI_Init on this rank, from the job's first MPI_Init entry
};

struct Segment {
  int64_t begin = 0;
  int64_t end = 0;
  uint32_t event = 0;
  uint32_t prev = kNoSegmentPrev;
  SegmentKind kind = SegmentKind::Compute;
  // The path passes through this piece of the thread's time without taking the call's end
  // edge: a wait that began before its completing call (a polling loop, rule 5) is split along
  // what the thread did meanwhile (docs/pag-rules.md rule 7). Such a call is not "on the path"
  // for the wait states, and its end edge is not the path's.
  bool passed = false;
};

// Segments appended in path order (latest first) and read back in that order or reversed.
// A record is: a flags byte (kind, passed, whether the segment ends where the one before it
// began, how prev relates to event), the event's difference from the one before it, the end's
// difference from the one before's begin (when they differ), the duration, prev when it is not
// kNoEvent or event - 1, all as zigzag varints; and its own length in a last byte, so that it
// can be read backwards: a record's values and its differences give the record before it.
class PathSegments {
 public:
  void push_back(const Segment& s);
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t bytes() const { return bytes_.capacity(); }
  void clear() {
    std::vector<uint8_t>().swap(bytes_);
    count_ = 0;
    last_event_ = 0;
    last_begin_ = 0;
  }
  void shrink_to_fit() { bytes_.shrink_to_fit(); }
  std::vector<Segment> to_vector() const;

  // A record's fields, as differences, and its length with the last byte.
  struct Record {
    uint8_t flags = 0;
    int64_t d_event = 0, d_end = 0, duration = 0, d_prev = 0;
    size_t length = 0;
  };

  // Input iterators: *it is the segment decoded at the current position. Inline: every
  // analysis after the walk reads the whole path through them.
  class const_iterator {
   public:
    const Segment& operator*() const { return cur_; }
    const Segment* operator->() const { return &cur_; }
    const_iterator& operator++() {
      if (!reverse_) {
        pos_ += rec_.length;
        ev_ = cur_.event;
        begin_ = cur_.begin;
      } else {
        // The record before: its event and begin from this one's values and differences.
        pos_ -= rec_.length;
        ev_ = static_cast<uint32_t>(static_cast<int64_t>(cur_.event) - rec_.d_event);
        begin_ = rec_.flags & kContiguous ? cur_.end : cur_.end - rec_.d_end;
      }
      decode();
      return *this;
    }
    bool operator==(const const_iterator& o) const { return pos_ == o.pos_; }
    bool operator!=(const const_iterator& o) const { return pos_ != o.pos_; }

   private:
    friend class PathSegments;
    const_iterator(const PathSegments* p, size_t pos, bool reverse) : p_(p), pos_(pos), reverse_(reverse) {
      if (reverse_) {
        ev_ = p_->last_event_;
        begin_ = p_->last_begin_;
      }
      decode();
    }
    void decode() {
      const std::vector<uint8_t>& b = p_->bytes_;
      if (!reverse_) {
        if (pos_ >= b.size()) return;
        read_record(b.data() + pos_, &rec_);
        const int64_t end = rec_.flags & kContiguous ? begin_ : begin_ + rec_.d_end;
        set(static_cast<uint32_t>(static_cast<int64_t>(ev_) + rec_.d_event), end);
        return;
      }
      if (pos_ == 0) return;
      read_record(b.data() + pos_ - b[pos_ - 1], &rec_);
      set(ev_, begin_ + rec_.duration);
    }
    void set(uint32_t event, int64_t end) {
      cur_.event = event;
      cur_.end = end;
      cur_.begin = end - rec_.duration;
      cur_.kind = static_cast<SegmentKind>(rec_.flags & kKindMask);
      cur_.passed = (rec_.flags & kPassed) != 0;
      const unsigned pm = rec_.flags >> kPrevShift;
      cur_.prev = pm == kPrevNone ? kNoSegmentPrev
                  : pm == kPrevBefore ? event - 1
                                      : static_cast<uint32_t>(static_cast<int64_t>(event) - rec_.d_prev);
    }
    const PathSegments* p_ = nullptr;
    size_t pos_ = 0;  // forward: where the current record begins; reverse: where it ends
    bool reverse_ = false;
    uint32_t ev_ = 0;   // forward: the previous record's event and begin; reverse: the current's
    int64_t begin_ = 0;
    Segment cur_;
    Record rec_;
  };
  const_iterator begin() const { return const_iterator(this, 0, false); }
  const_iterator end() const { return const_iterator(this, bytes_.size(), false); }
  const_iterator rbegin() const { return const_iterator(this, bytes_.size(), true); }
  const_iterator rend() const { return const_iterator(this, 0, true); }

 private:
  static constexpr uint8_t kKindMask = 0x03;
  static constexpr uint8_t kPassed = 0x04;
  static constexpr uint8_t kContiguous = 0x08;  // ends where the record before began
  static constexpr uint8_t kPrevShift = 4;      // 0: no prev, 1: event - 1, 2: given
  static constexpr uint8_t kPrevNone = 0, kPrevBefore = 1, kPrevGiven = 2;

  static uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
  static int64_t unzigzag(uint64_t u) { return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1); }
  static void put(std::vector<uint8_t>& b, uint64_t v) {
    while (v >= 0x80) {
      b.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    b.push_back(static_cast<uint8_t>(v));
  }
  static uint64_t get(const uint8_t*& p) {
    if (!(*p & 0x80)) return *p++;  // most differences fit in one byte
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t c = *p++;
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80) || shift >= 63) return v;
    }
  }
  static void read_record(const uint8_t* p, Record* r) {
    const uint8_t* const from = p;
    r->flags = *p++;
    r->d_event = unzigzag(get(p));
    r->d_end = r->flags & kContiguous ? 0 : unzigzag(get(p));
    r->duration = unzigzag(get(p));
    r->d_prev = (r->flags >> kPrevShift) == kPrevGiven ? unzigzag(get(p)) : 0;
    r->length = static_cast<size_t>(p - from) + 1;
  }

  std::vector<uint8_t> bytes_;
  size_t count_ = 0;
  uint32_t last_event_ = 0;  // of the last record (reverse reading starts from these)
  int64_t last_begin_ = 0;
};

}  // namespace cpath
