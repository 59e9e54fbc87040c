// Strips what a capture puts in front of a kernel message, so the record
// parsers see the bare printk text. Recognised decorations, in any order
// they appear in real captures:
//   mail quotes      "> ", ">> ", "> > " (any depth)
//   dmesg            "[   49.913402] "          -> uptime_s
//   dmesg -T         "[Thu Mar  5 11:22:33 2026] " -> wallclock
//   /dev/kmsg        "6,1234,49913402,-;"       -> uptime_s (microseconds)
//   journalctl -k    "Mar 05 11:22:33 host kernel: "         -> wallclock
//   journalctl -o short-iso / short-monotonic
//                    "2026-03-05T11:22:33+0000 host kernel: ", "[ 49.9] host kernel: "
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::parsers {

struct KernelLogLine {
  std::string_view message;         // the printk text (a view into the input)
  std::optional<double> uptime_s;   // seconds since boot, when the capture has it
  std::string_view wallclock;       // wall-clock time as written (a view into the input), when the capture has it
  int quote_depth = 0;              // number of mail quote markers removed
};

// Removes leading mail quote markers ('>' with optional spaces) and
// surrounding blanks; `depth` receives how many markers were removed.
std::string_view strip_quote_markers(std::string_view line, int* depth = nullptr);

// Removes quote markers and capture prefixes (see above). Never fails: an
// unknown prefix is left in the message.
KernelLogLine strip_capture_prefix(std::string_view line);

// The content of dmesg's "[   49.913402]" as seconds: a plain number
// (digits and a '.'; blanks around it), read as from_chars reads it; nullopt
// for anything else.
std::optional<double> bracket_uptime(std::string_view inside);

// False when the line certainly holds a message after its quote markers
// and capture prefixes (it does not end, blanks aside, in what ends one:
// ']', ':', ';', '>'); true when it may be nothing else, or blank.
bool may_be_bare_prefix(std::string_view line);

// True when the line, after quote markers, starts with a capture timestamp
// (so it begins a new log line and cannot be the tail of a wrapped one).
bool has_capture_timestamp(std::string_view line);

// Whether `text` reads as a kernel log as people capture it: one of its
// first 200 non-blank lines carries a capture timestamp (dmesg, dmesg -T,
// /dev/kmsg, journalctl -k), is the kernel's banner ("Linux version ...")
// or a journalctl boot or header line. Bare `dmesg -t` output passes only
// with its banner.
bool looks_like_kernel_log(std::string_view text);

}  // namespace kvmbench::parsers
