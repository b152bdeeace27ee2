// Open-addressing map from a 64-bit key to a 32-bit row index, in two flat arrays: the
// finalize-time analyses count rows (peers, communicator x call) per event without a node
// allocation per key. Memory follows the number of distinct keys.
#pragma once
#include <cstdint>
#include <vector>

namespace cpath {

class FlatIndex {
 public:
  // Index stored for `key`, or `value` newly stored (then *fresh = true).
  uint32_t find_or_add(uint64_t key, uint32_t value, bool* fresh) {
    if ((used_ + 1) * 2 > keys_.size()) grow();
    size_t i = slot(key);
    while (vals_[i] != kEmpty) {
      if (keys_[i] == key) {
        *fresh = false;
        return vals_[i];
      }
      i = (i + 1) & (keys_.size() - 1);
    }
    keys_[i] = key;
    vals_[i] = value;
    ++used_;
    *fresh = true;
    return value;
  }

 private:
  static constexpr uint32_t kEmpty = ~0u;
  size_t slot(uint64_t k) const {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<size_t>(k) & (keys_.size() - 1);
  }
  void grow() {
    std::vector<uint64_t> old_keys;
    std::vector<uint32_t> old_vals;
    old_keys.swap(keys_);
    old_vals.swap(vals_);
    const size_t cap = old_keys.empty() ? 16 : old_keys.size() * 2;
    keys_.assign(cap, 0);
    vals_.assign(cap, kEmpty);
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_vals[i] == kEmpty) continue;
      size_t j = slot(old_keys[i]);
      while (vals_[j] != kEmpty) j = (j + 1) & (cap - 1);
      keys_[j] = old_keys[i];
      vals_[j] = old_vals[i];
    }
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t used_ = 0;
};

}  // namespace cpath
