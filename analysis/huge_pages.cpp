#include "analysis/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace kvmbench {

void advise_huge_pages(const void* p, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = 2u << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace kvmbench
