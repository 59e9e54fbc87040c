#include "hostlib/measure/huge_page_share.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace kvmbench::host {

namespace {

std::optional<std::uint64_t> hex(std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "7f12a4000000-7f12a8000000 rw-p ..." -> its start and end.
std::optional<std::pair<std::uint64_t, std::uint64_t>> mapping_range(std::string_view line) {
  const auto dash = line.find('-');
  const auto space = line.find(' ');
  if (dash == std::string_view::npos || space == std::string_view::npos || dash > space) return std::nullopt;
  auto lo = hex(line.substr(0, dash));
  auto hi = hex(line.substr(dash + 1, space - dash - 1));
  if (!lo || !hi || *hi < *lo) return std::nullopt;
  return std::pair{*lo, *hi};
}

}  // namespace

std::optional<double> anon_huge_share(std::string_view smaps, const void* addr, std::uint64_t len) {
  if (len == 0) return std::nullopt;
  const auto begin = reinterpret_cast<std::uintptr_t>(addr);
  const auto end = begin + len;
  bool inside = false, seen = false;
  std::uint64_t huge_kb = 0;
  std::size_t pos = 0;
  while (pos < smaps.size()) {
    std::size_t nl = smaps.find('\n', pos);
    if (nl == std::string_view::npos) nl = smaps.size();
    const std::string_view line = smaps.substr(pos, nl - pos);
    pos = nl + 1;
    if (auto r = mapping_range(line)) {
      // A mapping line; the "Key: value kB" lines after it are its own.
      inside = r->first < end && r->second > begin;
      seen = seen || inside;
      continue;
    }
    constexpr std::string_view key = "AnonHugePages:";
    if (!inside || !line.starts_with(key)) continue;
    std::string_view v = line.substr(key.size());
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    std::uint64_t kb = 0;
    if (std::from_chars(v.data(), v.data() + v.size(), kb).ec == std::errc()) huge_kb += kb;
  }
  if (!seen) return std::nullopt;
  return static_cast<double>(huge_kb * 1024) / static_cast<double>(len);
}

std::optional<double> anon_huge_share(const void* addr, std::uint64_t len) {
  std::ifstream f("/proc/self/smaps");
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  return anon_huge_share(text.str(), addr, len);
}

}  // namespace kvmbench::host
