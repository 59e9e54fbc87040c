#include "hostlib/facts/rmpopt_boot_state.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "analysis/parse/kernel_log.h"
#include "analysis/parse/kernel_log_prefix.h"
#include "analysis/model/text_lines.h"
#include "hostlib/os/kernel_files.h"
#include "hostlib/facts/kmsg_reader.h"

namespace kvmbench::host {

namespace {

using parsers::kRmpoptAttempt;
using parsers::kRmpoptCoverage;
using parsers::kRmpoptEnabled;
using parsers::kRmpoptNotEnabled;
using State = RmpoptBootState::State;

constexpr std::array<std::pair<State, std::string_view>, 6> kNames = {{
    {State::not_checked, "not_checked"},
    {State::unreadable, "unreadable"},
    {State::no_line, "no_line"},
    {State::not_enabled, "not_enabled"},
    {State::enabled, "enabled"},
    {State::contradictory, "contradictory"},
}};

// The hexadecimal number at the start of `s` ("0x..." or bare digits).
std::optional<unsigned long long> hex_at(std::string_view s) {
  const std::string digits(s.substr(0, 24));
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), &end, 16);
  if (end == digits.c_str() || errno != 0) return std::nullopt;
  return v;
}

// "... [0x0000000000000000 - 0x000001ffffffffff]" (v3+) or "... 0x0 - 0x1f..."
// (as earlier tests wrote it): the two addresses after `from`.
std::pair<std::optional<unsigned long long>, std::optional<unsigned long long>> range_of(std::string_view msg,
                                                                                     std::size_t from) {
  const auto first = msg.find("0x", from);
  if (first == std::string_view::npos) return {};
  const auto dash = msg.find(" - 0x", first);
  return {hex_at(msg.substr(first)), dash == std::string_view::npos ? std::nullopt : hex_at(msg.substr(dash + 3))};
}

// Where the message of one captured line starts a new boot: the uptime
// went backwards, journalctl's "-- Boot <id> --", or the kernel's banner
// after the first one.
struct BootTracker {
  double last_uptime = -1;  // < 0: none seen in this boot yet
  bool banner_seen = false;
  bool starts_boot(std::string_view raw, const parsers::KernelLogLine& l) {
    const bool banner = l.message.substr(0, 14) == "Linux version ";
    const bool journal_boot = raw.substr(0, 8) == "-- Boot ";
    bool fresh = journal_boot || (banner && banner_seen);
    if (l.uptime_s) {
      if (last_uptime >= 0 && *l.uptime_s + 1e-6 < last_uptime) fresh = true;
      last_uptime = *l.uptime_s;
    }
    if (journal_boot) last_uptime = -1;
    banner_seen = fresh ? banner : (banner_seen || banner);
    return fresh;
  }
};

}  // namespace

std::string_view to_string(State s) {
  for (const auto& [state, name] : kNames)
    if (state == s) return name;
  return "?";
}

State rmpopt_boot_state_from_name(std::string_view name) {
  for (const auto& [state, n] : kNames)
    if (n == name) return state;
  throw std::invalid_argument(fmt::format("'{}' is not an RMPOPT boot state (not_checked, unreadable, no_line, "
                                          "not_enabled, enabled, contradictory)",
                                          name));
}

RmpoptBootState rmpopt_boot_state_from_log(std::string_view log) {
  RmpoptBootState s;
  s.state = State::no_line;
  std::string enabled_line, not_enabled_line;
  BootTracker boots;
  for_each_line(log, [&](std::size_t, std::string_view raw) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const parsers::KernelLogLine l = parsers::strip_capture_prefix(raw);
    if (boots.starts_boot(parsers::strip_quote_markers(raw), l)) {
      // Only the last boot counts: forget what an earlier one said.
      const int n = s.boots + 1;
      s = RmpoptBootState{};
      s.state = State::no_line;
      s.boots = n;
      enabled_line.clear();
      not_enabled_line.clear();
    }
    const std::string_view msg = l.message;
    if (msg.find(kRmpoptNotEnabled) != std::string_view::npos) {
      not_enabled_line = std::string(msg);
    } else if (auto at = msg.find(kRmpoptAttempt); at != std::string_view::npos) {
      s.revision = "v3+";
      ++s.range_lines;
      enabled_line = std::string(msg);
      std::tie(s.range_start, s.range_end) = range_of(msg, at + kRmpoptAttempt.size());
    } else if (auto en = msg.find(kRmpoptEnabled); en != std::string_view::npos) {
      if (s.revision.empty()) s.revision = "v1-v2";
      ++s.range_lines;
      enabled_line = std::string(msg);
      std::tie(s.range_start, s.range_end) = range_of(msg, en + kRmpoptEnabled.size());
    } else if (auto cov = msg.find(kRmpoptCoverage); cov != std::string_view::npos) {
      s.coverage_line = std::string(msg);
      if (auto above = msg.find("above 0x", cov); above != std::string_view::npos)
        s.not_optimized_above = hex_at(msg.substr(above + 6));
    }
  });
  if (!enabled_line.empty() && !not_enabled_line.empty()) {
    s.state = State::contradictory;
    s.line = enabled_line;
    s.detail = not_enabled_line;
  } else if (!not_enabled_line.empty()) {
    s.state = State::not_enabled;
    s.line = not_enabled_line;
  } else if (!enabled_line.empty()) {
    s.state = State::enabled;
    s.line = enabled_line;
  }
  return s;
}

std::string rmpopt_boot_refusal(const RmpoptBootState& s) {
  switch (s.state) {
    case State::enabled:
      return "";
    case State::not_enabled:
      return fmt::format("the kernel did not enable RMPOPT: \"{}\" (the series needs segmented RMP)", s.line);
    case State::contradictory:
      return fmt::format("the kernel log says both \"{}\" and \"{}\" in one boot: whether RMPOPT is on cannot be "
                         "told, so rmpopt is refused (give the log of one boot)",
                         s.line, s.detail);
    case State::no_line: {
      std::string why = fmt::format(
          "the kernel log holds none of the RMPOPT series' lines (\"{}\", v3 on; \"{}\", v1-v2; \"{}\"): this "
          "kernel does not carry the series, or SNP has not been initialised yet (the series prints its range "
          "when ccp initialises the SNP firmware and on every re-optimisation), or the lines have left the log "
          "buffer; from v4 on a host without segmented RMP turns RMPOPT off without a line",
          kRmpoptAttempt, kRmpoptEnabled, kRmpoptNotEnabled);
      if (s.debugfs.rfind("present", 0) == 0)
        why += fmt::format("; debugfs rmpopt/rmpopt-table is {}, so the kernel carries the series (v3 to v8) and has "
                           "not swept yet",
                           s.debugfs);
      return why;
    }
    case State::unreadable:
      return "cannot read the kernel log to see whether the kernel enabled RMPOPT: " + s.detail;
    case State::not_checked:
      return "whether the kernel enabled RMPOPT was not checked (the host description does not say)";
  }
  return "?";
}

std::string rmpopt_table_summary(std::string_view table) {
  std::size_t regions = 0, optimised = 0;
  for_each_line(table, [&](std::size_t, std::string_view line) {
    const std::size_t cpus = line.find("CPU(s):");
    if (!line.starts_with("Memory @") || cpus == std::string_view::npos) return;
    ++regions;
    std::string_view list = line.substr(cpus + 7);
    while (!list.empty() && list.front() == ' ') list.remove_prefix(1);
    if (!list.empty() && !list.starts_with("none")) ++optimised;
  });
  return fmt::format("{} region{} of 1 GiB listed, {} optimised on some CPU", regions, regions == 1 ? "" : "s",
                     optimised);
}

std::string rmpopt_boot_summary(const RmpoptBootState& s) {
  std::string out;
  if (s.state == State::enabled || s.state == State::contradictory) {
    out = fmt::format("{} ({}, {} range line{}: one per sweep)", s.line, s.revision, s.range_lines,
                      s.range_lines == 1 ? "" : "s");
  } else if (s.state == State::not_enabled) {
    out = s.line;
  }
  if (!s.coverage_line.empty()) out += (out.empty() ? "" : "; ") + s.coverage_line;
  if (s.boots > 1) out += fmt::format("{}the log holds {} boots; the last is read", out.empty() ? "" : "; ", s.boots);
  if (!s.debugfs.empty()) out += (out.empty() ? "" : "; ") + ("debugfs rmpopt/rmpopt-table: " + s.debugfs);
  return out;
}

RmpoptBootState rmpopt_boot_state_from_file(const std::string& path) {
  errno = 0;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::invalid_argument(fmt::format("--kmsg {}: a directory, not a kernel log", path));
  const auto text = read_kernel_file(path);
  if (!text)
    throw std::invalid_argument(fmt::format("--kmsg {}: cannot read it: {}", path, std::strerror(errno)));
  if (text->find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::invalid_argument(fmt::format("--kmsg {}: empty (expected dmesg or journalctl -k output)", path));
  if (!parsers::looks_like_kernel_log(*text))
    throw std::invalid_argument(fmt::format(
        "--kmsg {}: not a kernel log (none of its first lines has a dmesg, journalctl -k or /dev/kmsg timestamp, "
        "nor is the kernel's \"Linux version\" banner)",
        path));
  RmpoptBootState s = rmpopt_boot_state_from_log(*text);
  s.from = path;
  return s;
}

RmpoptBootState read_rmpopt_boot_state(const std::string& device, const std::string& debugfs_table) {
  std::string text;
  RmpoptBootState s;
  try {
    KmsgReader kmsg = KmsgReader::open_live(/*from_now=*/false, device);
    // Non-blocking: next(0) returns nothing once the buffer is read.
    while (auto rec = kmsg.next(0)) text += rec->message + "\n";
    s = rmpopt_boot_state_from_log(text);
  } catch (const std::exception& e) {
    s.state = State::unreadable;
    s.detail = e.what();
  }
  s.from = device;
  std::error_code ec;
  if (std::filesystem::exists(debugfs_table, ec)) {
    if (const auto table = read_kernel_file(debugfs_table))
      s.debugfs = "present: " + rmpopt_table_summary(*table);
    else
      s.debugfs = fmt::format("present but unreadable: {}", std::strerror(errno));
  }
  return s;
}

}  // namespace kvmbench::host
