// A small direct-mapped cache in front of a node-based map (std::unordered_map): the analysis's
// loops repeat a few keys (a loop's calls, a halo's channels), and remembering where their
// entries are saves most lookups, which were most of those loops' time. Entries of such a map
// stay where they are as it grows; clear() the cache with the map.
#pragma once
#include <array>
#include <cstddef>

namespace cpath {

template <class Map, size_t N = 64>
class MapCache {
  static_assert((N & (N - 1)) == 0, "slots are picked by masking the hash");

 public:
  using Key = typename Map::key_type;
  using Value = typename Map::mapped_type;

  // The entry of k, created as m[k] would.
  Value& at(Map& m, const Key& k) {
    Slot& s = slot(k);
    if (!s.at || !(s.key == k)) s = Slot{k, &m[k]};
    return *s.at;
  }
  // The cached entry of k, or nullptr (then look in the map and put() what was found).
  Value* find(const Key& k) {
    Slot& s = slot(k);
    return s.at && s.key == k ? s.at : nullptr;
  }
  void put(const Key& k, Value* v) { slot(k) = Slot{k, v}; }
  void clear() { slots_ = {}; }

 private:
  struct Slot {
    Key key{};
    Value* at = nullptr;
  };
  Slot& slot(const Key& k) { return slots_[typename Map::hasher()(k) & (N - 1)]; }
  std::array<Slot, N> slots_{};
};

}  // namespace cpath
