// /proc/vmstat: the kernel's event counters (page faults, THP and hugetlb
// allocations, compaction, TLB flushes, NUMA), read before and after a
// repetition; the monitors store their deltas as vmstat.<counter>.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::host {

using VmstatCounters = std::map<std::string, std::uint64_t>;

// "name value" lines; a line that is not one is left out.
VmstatCounters parse_vmstat(std::string_view text);
// nullopt when the file cannot be read.
std::optional<VmstatCounters> read_vmstat(const std::filesystem::path& path = "/proc/vmstat");

}  // namespace kvmbench::host
