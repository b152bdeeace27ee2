// What the replay learns for each communication op of a rank: the begin of the related call
// on another rank (PAG rule 3). For a receive that is the matching send's begin, for a send
// the matching receive's begin, for a collective the latest begin its pattern waits for.
#pragma once
#include <cstdint>
#include <vector>

namespace cpath {

struct Partner {
  int32_t rank = -1;       // world rank of the related call (-1: none known)
  uint32_t event = 0;      // its timeline index on that rank
  int64_t begin = 0;       // its begin on the aligned clock
  bool valid() const { return rank >= 0; }
};

struct ReplayStats {
  uint64_t sends_unmatched = 0;
  uint64_t recvs_unmatched = 0;
  uint64_t p2p_matched = 0;
  uint64_t collectives = 0;
  uint64_t collectives_approximated = 0;  // instance counts differ between members, etc.
  uint64_t skipped_unknown_group = 0;  // collectives on communicators whose group is unknown
};

}  // namespace cpath
