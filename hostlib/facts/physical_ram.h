// Where RAM ends in the physical address space: the first address above the
// highest byte of System RAM. A host's physical addresses run past its
// MemTotal (the PCI hole below 4 GiB is remapped above the top of RAM), and
// what covers "physical memory" by address, such as the RMPOPT series'
// sweep from the lowest RAM address to max_pfn capped at 2 TiB, leaves RAM
// out on a host whose MemTotal is below the cap. Two sources:
//   /proc/iomem: the top-level "System RAM" ranges (addresses read as 0
//                without CAP_SYS_ADMIN, so only as root);
//   /sys/devices/system/memory: the online memory blocks (block_size_bytes
//                times the highest block number + 1), readable by anyone
//                where the kernel has memory hotplug (Debian's do).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::host {

struct RamEnd {
  std::optional<std::uint64_t> end;  // first address above RAM; nullopt: not known
  std::string from;                  // "/proc/iomem", "/sys/devices/system/memory", or why neither
};

// Pure: the end of the highest top-level "System RAM" range of /proc/iomem
// text; nullopt when there is none or every address reads 0 (not root).
std::optional<std::uint64_t> ram_end_from_iomem(std::string_view iomem);

// The end of the highest online memory block under `dir` (a sysfs memory
// directory: block_size_bytes in hex, memoryN/ with an `online` file).
std::optional<std::uint64_t> ram_end_from_memory_blocks(const std::filesystem::path& dir);

// Live: /proc/iomem first, then the memory blocks.
RamEnd read_ram_end();

}  // namespace kvmbench::host
