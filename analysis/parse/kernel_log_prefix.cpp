#include "analysis/parse/kernel_log_prefix.h"
#include "analysis/model/text_lines.h"

#include <cctype>
#include <charconv>
#include <cstdint>
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

std::optional<double> bracket_uptime(std::string_view inside) {
  inside = trim(inside);
  if (inside.empty()) return std::nullopt;
  // Every line of a dmesg capture has a stamp, and only a record's is kept:
  // dmesg's form ("49.913402": digits, one '.', digits; at most 15 digits)
  // is read as an integer over a power of ten, which IEEE division rounds
  // as from_chars rounds the decimal (both are exact doubles below 2^53),
  // at a fraction of from_chars' cost. Anything else is left to from_chars.
  std::uint64_t whole = 0;
  int digits = 0, decimals = -1;  // decimals: -1 before the '.'
  for (char c : inside) {
    if (c >= '0' && c <= '9') {
      whole = whole * 10 + static_cast<std::uint64_t>(c - '0');
      ++digits;
      if (decimals >= 0) ++decimals;
    } else if (c == '.' && decimals < 0) {
      decimals = 0;
    } else if (c == '.') {
      digits = 99;  // a second '.': from_chars decides
    } else {
      return std::nullopt;
    }
  }
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  if (digits <= 15 && inside.front() != '.' && inside.back() != '.')
    return static_cast<double>(whole) / kPow10[decimals < 0 ? 0 : decimals];
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

// Hand-written matchers for the syslog-style prefixes. Each returns the
// length of the prefix it matched, 0 for none, and its field.
// ECMAScript regex each is equivalent to (tests compare them):
namespace {

bool digit(std::string_view s, std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Digits from i (at least one); returns the position after them, or 0.
std::size_t digits(std::string_view s, std::size_t i) {
  const std::size_t from = i;
  while (digit(s, i)) ++i;
  return i > from ? i : 0;
}

// " \S+ kernel: " from i: the end of the match, or 0.
std::size_t host_kernel(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] != ' ') return 0;
  const std::size_t host = ++i;
  while (i < s.size() && !space(s[i])) ++i;
  constexpr std::string_view tag = " kernel: ";
  return i > host && s.substr(i, tag.size()) == tag ? i + tag.size() : 0;
}

// ^(\d+),(\d+),(\d+),[^;]*;      field: the third number (microseconds)
std::size_t kmsg_prefix(std::string_view s, std::string_view& usec) {
  std::size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t from = i;
    if (!(i = digits(s, i)) || i >= s.size() || s[i] != ',') return 0;
    if (k == 2) usec = s.substr(from, i - from);
    ++i;
  }
  const std::size_t semi = s.find(';', i);
  return semi == std::string_view::npos ? 0 : semi + 1;
}

// ^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(\.\d+)?) \S+ kernel:     field: the time
std::size_t syslog_prefix(std::string_view s, std::string_view& stamp) {
  auto is = [&](std::size_t i, char lo, char hi) { return i < s.size() && s[i] >= lo && s[i] <= hi; };
  auto at = [&](std::size_t i, char c) { return i < s.size() && s[i] == c; };
  if (!(is(0, 'A', 'Z') && is(1, 'a', 'z') && is(2, 'a', 'z') && at(3, ' ') && (at(4, ' ') || digit(s, 4)) &&
        digit(s, 5) && at(6, ' ') && digit(s, 7) && digit(s, 8) && at(9, ':') && digit(s, 10) && digit(s, 11) &&
        at(12, ':') && digit(s, 13) && digit(s, 14)))
    return 0;
  std::size_t end = 15;
  if (at(end, '.') && digit(s, end + 1)) end = digits(s, end + 1);
  stamp = s.substr(0, end);
  return host_kernel(s, end);
}

// ^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*) \S+ kernel:       field: the time
std::size_t iso_prefix(std::string_view s, std::string_view& stamp) {
  auto at = [&](std::size_t i, char c) { return i < s.size() && s[i] == c; };
  if (!(digit(s, 0) && digit(s, 1) && digit(s, 2) && digit(s, 3) && at(4, '-') && digit(s, 5) && digit(s, 6) &&
        at(7, '-') && digit(s, 8) && digit(s, 9) && (at(10, 'T') || at(10, ' ')) && digit(s, 11) && digit(s, 12) &&
        at(13, ':') && digit(s, 14) && digit(s, 15) && at(16, ':') && digit(s, 17) && digit(s, 18)))
    return 0;
  std::size_t end = 19;
  while (end < s.size() && !space(s[end])) ++end;
  stamp = s.substr(0, end);
  return host_kernel(s, end);
}

}  // namespace

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
  // Syslog-style prefixes lie within the first 96 characters.
  const std::string_view head = s.substr(0, 96);
  std::string_view field;
  std::size_t len = 0;
  if ((len = kmsg_prefix(head, field))) {
    double usec = 0;
    std::from_chars(field.data(), field.data() + field.size(), usec);
    out.uptime_s = usec / 1e6;
  } else if ((len = syslog_prefix(head, field)) || (len = iso_prefix(head, field))) {
    out.wallclock = field;
  } else {
    return false;
  }
  s = trim_left(s.substr(len));
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

bool may_be_bare_prefix(std::string_view line) {
  while (!line.empty() && (is_blank(line.back()) || line.back() == '\n')) line.remove_suffix(1);
  if (line.empty()) return true;
  const char c = line.back();
  return c == ']' || c == ':' || c == ';' || c == '>';
}

bool has_capture_timestamp(std::string_view line) {
  KernelLogLine l = strip_capture_prefix(line);
  return l.uptime_s.has_value() || !l.wallclock.empty();
}

}  // namespace kvmbench::parsers

namespace kvmbench::parsers {

bool looks_like_kernel_log(std::string_view text) {
  int seen = 0;
  bool found = false;
  for_each_line(text, [&](std::size_t, std::string_view line) {
    const std::string_view bare = strip_quote_markers(line);
    if (bare.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    found = has_capture_timestamp(bare) || bare.starts_with("Linux version ") || bare.starts_with("-- Boot ") ||
            bare.starts_with("-- Logs begin at ") || bare.starts_with("-- Journal begins at ");
    return !found && ++seen < 200;
  });
  return found;
}

}  // namespace kvmbench::parsers
