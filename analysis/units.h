// Sizes as people write them on command lines: "4K", "1G", "100M", "2T",
// "5G" (binary multiples, as stress --vm-bytes and QEMU -m read them).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench {

// nullopt for anything malformed, negative or overflowing.
std::optional<unsigned long long> parse_bytes(std::string_view text);
// 1073741824 -> "1G", 1536 -> "1536" (exact multiples only get a suffix).
std::string format_bytes(unsigned long long bytes);

}  // namespace kvmbench
