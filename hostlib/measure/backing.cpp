#include "hostlib/measure/backing.h"

#include <array>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kvmbench::host {

namespace {

constexpr std::array<BackingInfo, 6> kTable = {{
    {Backing::anon_4k, "anon-4k", "private anonymous memory, MADV_NOHUGEPAGE", BackingNeeds::nothing, k4K},
    {Backing::thp, "thp", "private anonymous memory, MADV_HUGEPAGE, 2 MiB aligned", BackingNeeds::thp, k4K},
    {Backing::hugetlb_2m, "hugetlb-2m", "MAP_HUGETLB | MAP_HUGE_2MB from the pool", BackingNeeds::hugetlb_pool, k2M},
    {Backing::hugetlb_1g, "hugetlb-1g", "MAP_HUGETLB | MAP_HUGE_1GB from the pool", BackingNeeds::hugetlb_pool, k1G},
    {Backing::memfd, "memfd", "shmem (memfd_create), MAP_SHARED", BackingNeeds::nothing, k4K},
    {Backing::guest_memfd, "guest_memfd",
     "KVM_CREATE_GUEST_MEMFD with GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED, mmap'ed",
     BackingNeeds::guest_memfd, k4K},
}};

}  // namespace

std::span<const BackingInfo> backing_table() { return kTable; }

const BackingInfo& backing_info(Backing b) {
  for (const auto& i : kTable)
    if (i.backing == b) return i;
  throw std::logic_error("a Backing without a row in the backing table");
}

std::string_view backing_name(Backing b) { return backing_info(b).name; }

std::vector<std::string> backing_names() {
  std::vector<std::string> out;
  for (const auto& i : kTable) out.emplace_back(i.name);
  return out;
}

std::vector<Backing> all_backings() {
  std::vector<Backing> out;
  for (const auto& i : kTable) out.push_back(i.backing);
  return out;
}

std::optional<Backing> find_backing(std::string_view name) {
  for (const auto& i : kTable)
    if (i.name == name) return i.backing;
  return std::nullopt;
}

Backing parse_backing(std::string_view name) {
  if (auto b = find_backing(name)) return *b;
  throw std::invalid_argument(
      fmt::format("unknown memory backing '{}' (known: {})", name, fmt::join(backing_names(), ", ")));
}

}  // namespace kvmbench::host
