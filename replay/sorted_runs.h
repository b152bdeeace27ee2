// Sorting an array that arrived as runs already in order (one per sender of an exchange):
// merging the runs costs O(n log runs) where a sort by comparison costs O(n log n), and the
// senders' order is only trusted after a check (a run out of order is sorted first).
#pragma once
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace cpath {

// Sorts [first, first + bounds.back()) whose runs are [bounds[k], bounds[k + 1]). With a
// strict weak order under which no two elements are equivalent, the result is std::sort's.
template <class It, class Less>
void sort_runs(It first, const std::vector<size_t>& bounds, Less less) {
  using D = typename std::iterator_traits<It>::difference_type;
  for (size_t p = 0; p + 1 < bounds.size(); ++p) {
    const It b = first + static_cast<D>(bounds[p]), e = first + static_cast<D>(bounds[p + 1]);
    if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
  }
  for (size_t width = 1; width + 1 < bounds.size(); width *= 2)
    for (size_t p = 0; p + width + 1 < bounds.size(); p += 2 * width) {
      const size_t mid = bounds[p + width], end = bounds[std::min(p + 2 * width, bounds.size() - 1)];
      std::inplace_merge(first + static_cast<D>(bounds[p]), first + static_cast<D>(mid), first + static_cast<D>(end), less);
    }
}

}  // namespace cpath
