// A hint that a large buffer about to be filled should be backed by
// transparent huge pages (where the host allows them, "madvise" mode): one
// fault per 2 MiB instead of per 4 KiB. A long log's records and samples
// take hundreds of MB, and their 4 KiB faults were a tenth of the ingest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace kvmbench {

// Advises the whole 2 MiB-aligned pages inside [p, p + bytes); smaller
// buffers are left alone. Only a hint: never fails.
void advise_huge_pages(const void* p, std::size_t bytes);

// The same for the spare capacity of a vector reserved for filling.
template <typename T>
void advise_huge_pages(const std::vector<T>& v) {
  advise_huge_pages(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

// Appends `b` to `a`; when `a` must grow, into one advised buffer of the
// exact size (a long log's two halves are joined this way).
template <typename T>
void append_advised(std::vector<T>& a, std::vector<T>&& b) {
  if (a.capacity() < a.size() + b.size()) {
    std::vector<T> both;
    both.reserve(a.size() + b.size());
    advise_huge_pages(both);
    std::move(a.begin(), a.end(), std::back_inserter(both));
    a = std::move(both);
  }
  std::move(b.begin(), b.end(), std::back_inserter(a));
  b = {};
}

}  // namespace kvmbench
