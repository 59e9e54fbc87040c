// One kernel log record in the /dev/kmsg format
//   "<prefix>,<seq>,<timestamp us>,<flags>[,...];<message>\n"
//   followed by optional " KEY=value" dictionary lines.
// Pure parsing and formatting: hostlib/facts/kmsg_reader.h reads the device (or a
// saved capture in the same format) and hands these records to the parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmbench {

struct KmsgRecord {
  std::uint64_t seq = 0;
  std::uint64_t timestamp_us = 0;  // CLOCK_MONOTONIC at printk time, microseconds
  int priority = 6;                // syslog level, prefix & 7
  int facility = 0;                // prefix >> 3
  char flags = '-';                // '-' or 'c' (continuation)
  std::string message;             // unescaped (\xNN -> byte), without the trailing newline
  std::vector<std::pair<std::string, std::string>> dict;  // " SUBSYSTEM=..." lines
};

// Parses one record: the header line, optionally followed by dictionary
// lines ("\n KEY=value"). Returns nullopt when the header is malformed.
std::optional<KmsgRecord> parse_kmsg_record(std::string_view text);

// The /dev/kmsg text of a record (escaping bytes the kernel escapes:
// control characters and backslash as \xNN), dictionary lines included,
// ending with a newline; parse_kmsg_record(format_kmsg_record(r)) == r.
std::string format_kmsg_record(const KmsgRecord& r);

// A whole capture in the /dev/kmsg format, one record after the other: what
// is stored beside a run's samples and what the kernel log parser
// (analysis/parse/kernel_log.h) reads.
std::string to_kmsg_text(const std::vector<KmsgRecord>& records);

}  // namespace kvmbench
