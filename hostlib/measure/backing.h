// The kinds of fresh host memory a measurement can fault in (hostlib/
// fresh_memory.h), named once: the enum the code switches on, and one table
// of what each is called on the command line and in samples, what it is and
// what it needs from the host. A user's text is parsed into a Backing once,
// before anything runs; nothing past that compares backing names.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

// The x86 page sizes the backings map and touch memory in.
inline constexpr std::uint64_t k4K = 4096;
inline constexpr std::uint64_t k2M = 2ULL << 20;
inline constexpr std::uint64_t k1G = 1ULL << 30;

enum class Backing { anon_4k, thp, hugetlb_2m, hugetlb_1g, memfd, guest_memfd };

// What a backing needs beyond plain memory (directmap's availability check
// asks this, not the name).
enum class BackingNeeds {
  nothing,       // anon-4k, memfd: any Linux host
  thp,           // /sys/kernel/mm/transparent_hugepage
  hugetlb_pool,  // free pages of page_size in the hugetlb pool
  guest_memfd,   // KVM with guest_memfd and its MMAP | INIT_SHARED flags
};

struct BackingInfo {
  Backing backing;
  std::string_view name;         // "anon-4k": the --set value and the samples' extra.backing
  std::string_view description;  // how it is mapped
  BackingNeeds needs;
  std::uint64_t page_size;       // the page a mapping is rounded to
};

// Every backing, in the order `all` runs them.
std::span<const BackingInfo> backing_table();
const BackingInfo& backing_info(Backing b);
std::string_view backing_name(Backing b);
std::vector<std::string> backing_names();  // for param checks: {"anon-4k", "thp", ...}
std::vector<Backing> all_backings();

std::optional<Backing> find_backing(std::string_view name);
// Throws std::invalid_argument "unknown memory backing 'x' (known: anon-4k,
// thp, ...)".
Backing parse_backing(std::string_view name);

}  // namespace kvmbench::host
