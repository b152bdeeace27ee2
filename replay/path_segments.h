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

  // Input iterators: *it is the segment decoded at the current position.
  class const_iterator {
   public:
    const Segment& operator*() const { return cur_; }
    const Segment* operator->() const { return &cur_; }
    const_iterator& operator++();
    bool operator==(const const_iterator& o) const { return pos_ == o.pos_; }
    bool operator!=(const const_iterator& o) const { return pos_ != o.pos_; }

   private:
    friend class PathSegments;
    const_iterator(const PathSegments* p, size_t pos, bool reverse);
    void decode();
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
  std::vector<uint8_t> bytes_;
  size_t count_ = 0;
  uint32_t last_event_ = 0;  // of the last record (reverse reading starts from these)
  int64_t last_begin_ = 0;
};

}  // namespace cpath
