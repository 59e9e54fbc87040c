#include "hostlib/rmpopt_boot_state.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "analysis/parsers/kernel_log.h"
#include "hostlib/kmsg_reader.h"

namespace kvmbench::host {

namespace {

using parsers::kRmpoptEnabled;
using parsers::kRmpoptNotEnabled;

constexpr std::array<std::pair<RmpoptBootState::State, std::string_view>, 5> kNames = {{
    {RmpoptBootState::State::not_checked, "not_checked"},
    {RmpoptBootState::State::unreadable, "unreadable"},
    {RmpoptBootState::State::no_line, "no_line"},
    {RmpoptBootState::State::not_enabled, "not_enabled"},
    {RmpoptBootState::State::enabled, "enabled"},
}};

// "... 0x0000000000000000 - 0x000001ffffffffff" -> the second number.
std::optional<unsigned long long> range_end_of(std::string_view line) {
  const auto dash = line.find(" - 0x");
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string digits(line.substr(dash + 5));
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), &end, 16);
  if (end == digits.c_str() || errno != 0) return std::nullopt;
  return v;
}

}  // namespace

std::string_view to_string(RmpoptBootState::State s) {
  for (const auto& [state, name] : kNames)
    if (state == s) return name;
  return "?";
}

RmpoptBootState::State rmpopt_boot_state_from_name(std::string_view name) {
  for (const auto& [state, n] : kNames)
    if (n == name) return state;
  throw std::invalid_argument(fmt::format("'{}' is not an RMPOPT boot state (not_checked, unreadable, no_line, "
                                          "not_enabled, enabled)",
                                          name));
}

RmpoptBootState rmpopt_boot_state_from_log(std::string_view log) {
  RmpoptBootState s;
  s.state = RmpoptBootState::State::no_line;
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t eol = log.find('\n', pos);
    if (eol == std::string_view::npos) eol = log.size();
    const std::string_view line = log.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.find(kRmpoptNotEnabled) != std::string_view::npos) {
      s.state = RmpoptBootState::State::not_enabled;
      s.line = std::string(line);
      s.range_end.reset();
    } else if (line.find(kRmpoptEnabled) != std::string_view::npos) {
      s.state = RmpoptBootState::State::enabled;
      s.line = std::string(line);
      s.range_end = range_end_of(line);
    }
  }
  return s;
}

std::string rmpopt_boot_refusal(const RmpoptBootState& s) {
  switch (s.state) {
    case RmpoptBootState::State::enabled:
      return "";
    case RmpoptBootState::State::not_enabled:
      return fmt::format("the kernel did not enable RMPOPT at boot: \"{}\" (the series needs segmented RMP)", s.line);
    case RmpoptBootState::State::no_line:
      return fmt::format("the kernel log holds neither \"{}\" nor \"{}\": this kernel does not carry the RMPOPT "
                         "series (or its boot lines have left the log buffer)",
                         kRmpoptNotEnabled, kRmpoptEnabled);
    case RmpoptBootState::State::unreadable:
      return "cannot read the kernel log to see whether the kernel enabled RMPOPT at boot: " + s.detail;
    case RmpoptBootState::State::not_checked:
      return "whether the kernel enabled RMPOPT at boot was not checked (the host description does not say)";
  }
  return "?";
}

RmpoptBootState read_rmpopt_boot_state(const std::string& device) {
  std::string text;
  try {
    KmsgReader kmsg = KmsgReader::open_live(/*from_now=*/false, device);
    // Non-blocking: next(0) returns nothing once the buffer is read.
    while (auto rec = kmsg.next(0)) text += rec->message + "\n";
  } catch (const std::exception& e) {
    RmpoptBootState s;
    s.state = RmpoptBootState::State::unreadable;
    s.detail = e.what();
    return s;
  }
  return rmpopt_boot_state_from_log(text);
}

}  // namespace kvmbench::host
