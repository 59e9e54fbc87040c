// Parsing /proc/meminfo text (and the per-node
// /sys/devices/system/node/nodeN/meminfo, whose lines start with "Node N ").
// Pure: the sampler in hostlib/ reads the file, this turns text into numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kvmbench {

// Field name -> value. Fields given in kB are converted to bytes; fields
// without a unit (HugePages_Total, HugePages_Free, ...) are plain counts.
using Meminfo = std::map<std::string, std::uint64_t>;

// Lines that do not look like "Name:   123 kB" are skipped (the format grows
// new fields with every kernel; an unknown shape is not an error).
Meminfo parse_meminfo(std::string_view text);

// One field straight from the text, without building the whole map (the
// sampler's hot path reads only a few fields at a high rate).
std::optional<std::uint64_t> meminfo_field(std::string_view text, std::string_view name);

}  // namespace kvmbench
