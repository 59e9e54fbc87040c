// How much of a mapping the kernel backs with transparent huge pages, read
// after a fault-in: a "thp" case that got 4 KiB pages measured something
// else than its name says, and a reader of its fault-in rate must see it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kvmbench::host {

// The share (0..1) of [addr, addr + len) that is AnonHugePages now, summed
// over the mappings of `smaps` (the text of /proc/self/smaps) that lie in
// the range; nullopt when no mapping of the range is listed.
std::optional<double> anon_huge_share(std::string_view smaps, const void* addr, std::uint64_t len);

// The same, from this process's /proc/self/smaps (nullopt when unreadable).
std::optional<double> anon_huge_share(const void* addr, std::uint64_t len);

}  // namespace kvmbench::host
