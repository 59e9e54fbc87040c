#include "analysis/parsers/kernel_log_prefix.h"

#include <cctype>
#include <charconv>
#include <regex>
#include <string>

namespace kvmbench::parsers {

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}

static std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string_view strip_quote_markers(std::string_view line, int* depth) {
  int d = 0;
  std::string_view s = trim_left(line);
  while (!s.empty() && s.front() == '>') {
    ++d;
    s = trim_left(s.substr(1));
  }
  if (depth) *depth = d;
  return trim(s);
}

// "[   49.913402]" -> 49.913402; the bracket content must be a plain number.
static std::optional<double> bracket_uptime(std::string_view inside) {
  inside = trim(inside);
  if (inside.empty()) return std::nullopt;
  for (char c : inside)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), v);
  if (ec != std::errc() || p != inside.data() + inside.size()) return std::nullopt;
  return v;
}

// "<host> kernel: " after a timestamp (journalctl); returns the rest or nullopt.
static std::optional<std::string_view> after_host_kernel(std::string_view s) {
  s = trim_left(s);
  std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0) return std::nullopt;
  std::string_view rest = s.substr(sp + 1);
  constexpr std::string_view tag = "kernel: ";
  if (rest.substr(0, tag.size()) != tag) return std::nullopt;
  return trim_left(rest.substr(tag.size()));
}

// One decoration off the front of `s`; false when none matched.
static bool strip_one(std::string_view& s, KernelLogLine& out) {
  if (s.empty()) return false;
  if (s.front() == '[') {
    std::size_t close = s.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view inside = s.substr(1, close - 1);
    if (auto up = bracket_uptime(inside)) {
      out.uptime_s = up;
    } else if (inside.find(':') != std::string_view::npos && inside.size() <= 32 &&
               std::isalpha(static_cast<unsigned char>(trim(inside).empty() ? ' ' : trim(inside).front()))) {
      out.wallclock = trim(inside);  // dmesg -T
    } else {
      return false;
    }
    s = trim_left(s.substr(close + 1));
    if (auto rest = after_host_kernel(s)) s = *rest;  // journalctl -o short-monotonic
    return true;
  }
  // /dev/kmsg: "level,seq,usec,flags;message"
  static const std::regex kmsg(R"(^(\d+),(\d+),(\d+),[^;]*;)");
  // journalctl -k (short) and syslog: "Mar 05 11:22:33 host kernel: "
  static const std::regex syslog(R"(^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(\.\d+)?) \S+ kernel: )");
  // journalctl -o short-iso / short-precise: "2026-03-05T11:22:33+0000 host kernel: "
  static const std::regex iso(R"(^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*) \S+ kernel: )");
  // Cheap first-character tests decide which regex can match at all:
  // std::regex is slow, and most lines of a capture (every line after its
  // printk time is stripped) match none of them.
  auto digit = [&](std::size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  const bool may_kmsg = digit(0) && s.find(';') != std::string_view::npos;
  const bool may_syslog = s.size() > 16 && std::isupper(static_cast<unsigned char>(s[0])) &&
                          std::islower(static_cast<unsigned char>(s[1])) && s[3] == ' ';
  const bool may_iso = digit(0) && digit(1) && digit(2) && digit(3) && s.size() > 4 && s[4] == '-';
  if (!may_kmsg && !may_syslog && !may_iso) return false;
  const std::string str(s.substr(0, 96));  // prefixes are short; avoid copying long lines
  std::smatch m;
  if (may_kmsg && std::regex_search(str, m, kmsg)) {
    out.uptime_s = std::stod(m[3].str()) / 1e6;
  } else if ((may_syslog && std::regex_search(str, m, syslog)) || (may_iso && std::regex_search(str, m, iso))) {
    out.wallclock = s.substr(static_cast<std::size_t>(m.position(1)), static_cast<std::size_t>(m.length(1)));
  } else {
    return false;
  }
  s = trim_left(s.substr(static_cast<std::size_t>(m.length(0))));
  return true;
}

KernelLogLine strip_capture_prefix(std::string_view line) {
  KernelLogLine out;
  std::string_view s = strip_quote_markers(line, &out.quote_depth);
  // At most a few decorations stack up (e.g. syslog time + printk time).
  for (int i = 0; i < 3 && strip_one(s, out); ++i) {
  }
  out.message = s;
  return out;
}

bool has_capture_timestamp(std::string_view line) {
  KernelLogLine l = strip_capture_prefix(line);
  return l.uptime_s.has_value() || !l.wallclock.empty();
}

}  // namespace kvmbench::parsers
