// The syslog-style capture prefixes (/dev/kmsg, journalctl -k, journalctl
// -o short-iso) are matched by hand; these were std::regex, and the
// regexes below are the reference: on valid prefixes and on thousands of
// mutated ones, stripping must give the same uptime, wall clock and message.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "analysis/parse/kernel_log_prefix.h"

using namespace kvmbench::parsers;

namespace {

struct Stripped {
  std::optional<double> uptime_s;
  std::string wallclock, message;
};

// The regex path as it was: one prefix at most (the generated messages
// below start with nothing that could be stripped a second time).
Stripped reference(const std::string& line) {
  static const std::regex kmsg(R"(^(\d+),(\d+),(\d+),[^;]*;)");
  static const std::regex syslog(R"(^([A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(\.\d+)?) \S+ kernel: )");
  static const std::regex iso(R"(^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*) \S+ kernel: )");
  Stripped out;
  std::string_view s = strip_quote_markers(line);
  const std::string str(s.substr(0, 96));
  std::smatch m;
  if (std::regex_search(str, m, kmsg)) out.uptime_s = std::stod(m[3].str()) / 1e6;
  else if (std::regex_search(str, m, syslog) || std::regex_search(str, m, iso)) out.wallclock = m[1].str();
  else m = std::smatch();
  if (!m.empty()) {
    s.remove_prefix(static_cast<std::size_t>(m.length(0)));
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  }
  out.message = std::string(s);
  return out;
}

void expect_as_reference(const std::string& line) {
  const Stripped want = reference(line);
  const KernelLogLine got = strip_capture_prefix(line);
  EXPECT_EQ(got.uptime_s, want.uptime_s) << line;
  EXPECT_EQ(got.wallclock, want.wallclock) << line;
  EXPECT_EQ(got.message, want.message) << line;
}

}  // namespace

TEST(KernelLogPrefix, HandMatchersAgreeWithTheRegexes) {
  const std::string msg = "SEV-SNP: RMPOPT largest cycles 1143020";
  const std::string prefixes[] = {
      "6,1234,49913402,-;",
      "6,1234,49913402,-,caller=T1;",
      "12,0,0,c;",
      "Mar 05 11:22:33 lab1 kernel: ",
      "Mar  5 11:22:33 lab1 kernel: ",
      "Mar 05 11:22:33.123456 lab1 kernel: ",
      "Dec 31 23:59:59 host-with-dashes.example.org kernel: ",
      "2026-03-05T11:22:33+0000 lab1 kernel: ",
      "2026-03-05 11:22:33 lab1 kernel: ",
      "2026-03-05T11:22:33.123456+01:00 lab1 kernel: ",
  };
  std::uint64_t seed = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  // Characters that prefixes are made of, and a few that break them ('['
  // is left out: a bracket is another branch, unchanged).
  const std::string alphabet = "0123456789 :;,.-+TMarkeln\t";
  std::size_t mutated = 0;
  for (const std::string& p : prefixes) {
    expect_as_reference(p + msg);
    expect_as_reference("> " + p + msg);
    for (int k = 0; k < 400; ++k) {
      std::string q = p;
      for (int edits = 1 + static_cast<int>(next() % 3); edits > 0 && !q.empty(); --edits) {
        const std::size_t at = next() % q.size();
        switch (next() % 3) {
          case 0: q[at] = alphabet[next() % alphabet.size()]; break;
          case 1: q.erase(at, 1); break;
          default: q.insert(at, 1, alphabet[next() % alphabet.size()]);
        }
      }
      expect_as_reference(q + msg);
      ++mutated;
    }
  }
  // Past 96 characters a prefix is not looked for.
  expect_as_reference("6,1," + std::string(100, '9') + ",x;" + msg);
  expect_as_reference("Mar 05 11:22:33 " + std::string(90, 'h') + " kernel: " + msg);
  EXPECT_EQ(mutated, 4000u);
}

// dmesg's uptime is a plain number: digits and one '.', blanks around it;
// anything else (an exponent, a sign, a second '.', a wall clock) is none.
TEST(KernelLogPrefix, UptimeIsAPlainNumber) {
  EXPECT_EQ(bracket_uptime("   49.913402"), 49.913402);
  EXPECT_EQ(bracket_uptime("12345.678901"), 12345.678901);
  EXPECT_EQ(bracket_uptime("1"), 1.0);
  EXPECT_EQ(bracket_uptime(" 7.25 "), 7.25);
  for (const char* none : {"", " ", ".", "1.2.3", "1e5", "-1.0", "+1", "Thu Mar  5 11:22:33 2026", "0x10"})
    EXPECT_FALSE(bracket_uptime(none).has_value()) << "'" << none << "'";
}

// The stamps read without from_chars (digits over a power of ten) are the
// doubles from_chars reads, bit for bit, for every number of digits on
// either side of the '.', and longer ones still read.
TEST(KernelLogPrefix, UptimeReadsAsFromChars) {
  std::uint64_t s = 12345;
  auto next = [&] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int n = 0; n < 20000; ++n) {
    const int whole = 1 + static_cast<int>(next() % 10), frac = static_cast<int>(next() % 10);
    std::string text;
    for (int k = 0; k < whole; ++k) text += static_cast<char>('0' + next() % 10);
    if (frac > 0 || next() % 2) text += '.';
    for (int k = 0; k < frac; ++k) text += static_cast<char>('0' + next() % 10);
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const std::optional<double> want =
        ec == std::errc() && p == text.data() + text.size() ? std::optional<double>(v) : std::nullopt;
    EXPECT_EQ(bracket_uptime(text), want) << text;
  }
  EXPECT_EQ(bracket_uptime("12345678901234567.123"), 12345678901234567.123);
}
