#include "analysis/parse/kvm_unit_tests.h"

#include <cctype>
#include <charconv>
#include <optional>

#include "analysis/model/text_lines.h"

namespace kvmbench::parsers {

namespace {

// "<name> <cycles>": a name of letters, digits, '_', '-', '.', one space, a
// count, nothing else. The name and the count, or nullopt.
std::optional<std::pair<std::string_view, double>> name_and_cycles(std::string_view l) {
  while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
  const std::size_t sp = l.find(' ');
  if (sp == 0 || sp == std::string_view::npos || l.find(' ', sp + 1) != std::string_view::npos) return std::nullopt;
  const std::string_view name = l.substr(0, sp), count = l.substr(sp + 1);
  if (!std::isalpha(static_cast<unsigned char>(name.front()))) return std::nullopt;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return std::nullopt;
  long long v = 0;
  auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), v);
  if (count.empty() || ec != std::errc() || p != count.data() + count.size() || v < 0) return std::nullopt;
  return std::pair{name, static_cast<double>(v)};
}

}  // namespace

bool looks_like_vmexit_output(std::string_view text) {
  bool found = false;
  for_each_line(text, [&](std::size_t, std::string_view l) {
    if (auto r = name_and_cycles(l); r && (r->first == "cpuid" || r->first == "vmcall" || r->first == "vmmcall"))
      found = true;
  });
  return found;
}

ParseResult parse_vmexit_output(std::string_view text) {
  ParseResult res;
  res.format = "kvm-unit-tests-vmexit";
  for_each_line(text, [&](std::size_t n, std::string_view l) {
    ++res.lines_read;
    auto r = name_and_cycles(l);
    if (!r) {
      if (l.find_first_not_of(" \t\r") != std::string_view::npos) ++res.lines_ignored;
      return;
    }
    Sample s;
    s.case_name = "vmexit";
    s.metric = r->first;
    s.unit = "cycles";
    s.value = r->second;
    s.extra = {{"line", n}};
    res.samples.push_back(std::move(s));
    ++res.records;
  });
  if (res.samples.empty()) throw ParseError(1, "kvm-unit-tests vmexit output without a \"<name> <cycles>\" line");
  return res;
}

}  // namespace kvmbench::parsers
