// Sorting an array that arrived as runs already in order (one per sender of an exchange):
// merging the runs costs O(n log runs) where a sort by comparison costs O(n log n), and the
// senders' order is only trusted after a check (a run out of order is sorted first).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// Indices 0 .. n-1 in the order of key(i) in [0, buckets), index order within a key (a stable
// counting sort, O(n + buckets)); `bounds`, if given, receives each key's range of the result.
template <class Key>
std::vector<uint32_t> bucket_order(size_t n, size_t buckets, Key key, std::vector<size_t>* bounds = nullptr) {
  std::vector<size_t> start(buckets + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[key(i) + 1];
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  if (bounds) *bounds = start;
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[start[key(i)]++] = static_cast<uint32_t>(i);
  return out;
}

// Sorts *v by `less`, which orders by key(x) in [0, buckets) first: bucket_order by that key,
// then each bucket checked and sorted only if out of order (values appended in an order that
// mostly agrees with `less` within their key: one pass instead of a sort). A key out of range:
// std::sort of the whole. With no two elements equivalent, std::sort's result.
template <class T, class Key, class Less>
void sort_by_bucket(std::vector<T>* v, size_t buckets, Key key, Less less) {
  if (std::any_of(v->begin(), v->end(), [&](const T& x) { return key(x) >= buckets; })) {
    std::sort(v->begin(), v->end(), less);
    return;
  }
  std::vector<size_t> bounds;
  const std::vector<uint32_t> order = bucket_order(v->size(), buckets, [&](size_t i) { return key((*v)[i]); }, &bounds);
  std::vector<T> out(v->size());
  for (size_t j = 0; j < order.size(); ++j) out[j] = std::move((*v)[order[j]]);
  v->swap(out);
  sort_each_run(v->begin(), bounds, less);
}

}  // namespace cpath
