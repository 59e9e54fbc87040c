#include "analysis/parse/meminfo.h"

#include <charconv>

#include "analysis/model/text_lines.h"

namespace kvmbench {

namespace {

std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "Node 0 MemTotal" -> "MemTotal".
std::string_view field_name(std::string_view key) {
  key = strip(key);
  if (key.substr(0, 5) == "Node ") {
    auto sp = key.find(' ', 5);
    if (sp != std::string_view::npos) key = strip(key.substr(sp + 1));
  }
  return key;
}

// "  123 kB" -> 123*1024, "  42" -> 42.
std::optional<std::uint64_t> parse_value(std::string_view v) {
  v = strip(v);
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p == v.data()) return std::nullopt;
  auto unit = strip(std::string_view(p, static_cast<std::size_t>(v.data() + v.size() - p)));
  if (unit.empty()) return n;
  if (unit == "kB") return n * 1024;
  return std::nullopt;
}

}  // namespace

Meminfo parse_meminfo(std::string_view text) {
  Meminfo m;
  for_each_line(text, [&](std::size_t, std::string_view line) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return true;
    auto name = field_name(line.substr(0, colon));
    if (name.empty()) return true;
    if (auto v = parse_value(line.substr(colon + 1))) m[std::string(name)] = *v;
    return true;
  });
  return m;
}

std::optional<std::uint64_t> meminfo_field(std::string_view text, std::string_view name) {
  std::optional<std::uint64_t> out;
  for_each_line(text, [&](std::size_t, std::string_view line) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos || field_name(line.substr(0, colon)) != name) return true;
    out = parse_value(line.substr(colon + 1));
    return false;
  });
  return out;
}

}  // namespace kvmbench
