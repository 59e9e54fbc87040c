// Units as people write them: sizes on command lines ("4K", "1G", "100M",
// "2T", "5G": binary multiples, as stress --vm-bytes and QEMU -m read
// them), and the time units of benchmark output.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench {

// nullopt for anything malformed, negative or overflowing.
std::optional<unsigned long long> parse_bytes(std::string_view text);
// 1073741824 -> "1G", 1536 -> "1536" (exact multiples only get a suffix).
std::string format_bytes(unsigned long long bytes);

// Seconds in one of a time unit as Google Benchmark and the KVM selftests
// write them ("s", "ms", "us", "ns"); nullopt for anything else.
std::optional<double> seconds_per_time_unit(std::string_view unit);

}  // namespace kvmbench
