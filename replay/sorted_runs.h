// Sorting an array that arrived as runs already in order (one per sender of an exchange):
// merging the runs costs O(n log runs) where a sort by comparison costs O(n log n), and the
// senders' order is only trusted after a check (a run out of order is sorted first).
#pragma once
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace cpath {

// Sorts each run [bounds[k], bounds[k + 1]) of `first` that is not in order already.
template <class It, class Less>
void sort_each_run(It first, const std::vector<size_t>& bounds, Less less) {
  using D = typename std::iterator_traits<It>::difference_type;
  for (size_t p = 0; p + 1 < bounds.size(); ++p) {
    const It b = first + static_cast<D>(bounds[p]), e = first + static_cast<D>(bounds[p + 1]);
    if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
  }
}

// Sorts [first, first + bounds.back()) whose runs are [bounds[k], bounds[k + 1]). With a
// strict weak order under which no two elements are equivalent, the result is std::sort's.
template <class It, class Less>
void sort_runs(It first, const std::vector<size_t>& bounds, Less less) {
  using D = typename std::iterator_traits<It>::difference_type;
  sort_each_run(first, bounds, less);
  for (size_t width = 1; width + 1 < bounds.size(); width *= 2)
    for (size_t p = 0; p + width + 1 < bounds.size(); p += 2 * width) {
      const size_t mid = bounds[p + width], end = bounds[std::min(p + 2 * width, bounds.size() - 1)];
      std::inplace_merge(first + static_cast<D>(bounds[p]), first + static_cast<D>(mid), first + static_cast<D>(end), less);
    }
}

// Sorts *v by `less`, which orders by key(x) in [0, buckets) first: a stable counting sort by
// that key, then each bucket checked and sorted only if out of order (values appended in an
// order that mostly agrees with `less` within their key: one pass instead of a sort). A key out
// of range: std::sort of the whole. With no two elements equivalent, std::sort's result.
template <class T, class Key, class Less>
void sort_by_bucket(std::vector<T>* v, size_t buckets, Key key, Less less) {
  std::vector<size_t> bounds(buckets + 1, 0);
  for (const T& x : *v) {
    const size_t k = key(x);
    if (k >= buckets) {
      std::sort(v->begin(), v->end(), less);
      return;
    }
    ++bounds[k + 1];
  }
  for (size_t b = 0; b < buckets; ++b) bounds[b + 1] += bounds[b];
  std::vector<T> out(v->size());
  std::vector<size_t> pos(bounds.begin(), bounds.end() - 1);
  for (T& x : *v) out[pos[key(x)]++] = std::move(x);
  v->swap(out);
  sort_each_run(v->begin(), bounds, less);
}

}  // namespace cpath
