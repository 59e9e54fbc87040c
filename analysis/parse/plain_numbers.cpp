#include "analysis/parse/plain_numbers.h"

#include "analysis/model/printable.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace kvmbench {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Shown in error messages; long garbage lines are cut.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'" + printable(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  out += "'";
  return out;
}

double parse_one(std::string_view token, std::size_t line) {
  std::string_view digits = token;
  // from_chars does not take a leading '+'; a sign is fine in a data file.
  if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-' && digits[1] != '+')
    digits.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v,
                                   std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    throw PlainNumbersError(line, "number out of range: " + quoted(token));
  if (ec != std::errc() || end != digits.data() + digits.size())
    throw PlainNumbersError(line, "not a number: " + quoted(token));
  // from_chars accepts "inf" and "nan"; no measurement is either.
  if (!std::isfinite(v)) throw PlainNumbersError(line, "not a finite number: " + quoted(token));
  return v;
}

}  // namespace

PlainNumbers parse_plain_numbers(std::string_view text) {
  PlainNumbers out;
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    std::size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view s = trim(raw);
    if (s.empty() || s.front() == '#') continue;
    out.values.push_back(parse_one(s, line));
    out.lines.push_back(line);
  }
  return out;
}

}  // namespace kvmbench
