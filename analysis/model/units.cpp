#include "analysis/model/units.h"

#include <cctype>
#include <charconv>
#include <limits>

namespace kvmbench {

std::optional<unsigned long long> parse_bytes(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  unsigned long long value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p == text.data()) return std::nullopt;
  std::string_view suffix(p, static_cast<std::size_t>(text.data() + text.size() - p));
  // Accept "G", "g", "GB", "GiB".
  if (suffix.size() > 1 && (suffix.substr(1) == "B" || suffix.substr(1) == "iB" || suffix.substr(1) == "b"))
    suffix = suffix.substr(0, 1);
  int shift = 0;
  if (suffix.empty() || suffix == "B" || suffix == "b") shift = 0;
  else if (suffix.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'P': shift = 50; break;
      default: return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (shift && value > (std::numeric_limits<unsigned long long>::max() >> shift)) return std::nullopt;
  return value << shift;
}

std::string format_bytes(unsigned long long bytes) {
  static const char* suffixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (i < 5 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return std::to_string(bytes) + suffixes[i];
}

std::optional<double> seconds_per_time_unit(std::string_view unit) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  return std::nullopt;
}

}  // namespace kvmbench
