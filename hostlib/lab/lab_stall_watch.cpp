#include "hostlib/lab/lab_stall_watch.h"

#include <fmt/format.h>

#include "analysis/parse/kernel_console_trouble.h"

namespace kvmbench::host {

namespace {

// Lines of lab-init that only a machine that runs its user space prints.
std::size_t count_marker(std::string_view text, std::string_view marker) {
  std::size_t n = 0;
  for (auto at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + marker.size())) ++n;
  return n;
}

// "uptime=S" of the last heartbeat.
std::string last_uptime(std::string_view console) {
  const auto at = console.rfind("KVMBENCH-LAB-ALIVE uptime=");
  if (at == std::string_view::npos) return {};
  auto rest = console.substr(at + std::string_view("KVMBENCH-LAB-ALIVE uptime=").size());
  return std::string(rest.substr(0, rest.find_first_of(" \r\n")));
}

}  // namespace

LabStallWatch::LabStallWatch(LabWatchLimits limits) : limits_(limits) {}

LabWatchVerdict LabStallWatch::observe(double t, std::string_view console, bool command_wrote) {
  LabWatchVerdict v;
  const std::size_t alive = count_marker(console, "KVMBENCH-LAB-ALIVE");
  const std::size_t markers = count_marker(console, "KVMBENCH-LAB-BOOTED") + count_marker(console, "KVMBENCH-LAB-READY");
  if (alive != alive_seen_ || markers != markers_seen_ || command_wrote) last_life_ = t;
  if (alive != alive_seen_) uptime_ = last_uptime(console);
  alive_seen_ = alive;
  markers_seen_ = markers;
  if (command_wrote) last_output_ = last_note_ = t;

  // New complete lines only: a report is said once.
  const auto end = console.rfind('\n');
  if (end != std::string_view::npos && end + 1 > scanned_) {
    const std::string_view fresh = console.substr(scanned_, end + 1 - scanned_);
    if (auto s = first_kernel_stall(fresh)) {
      v.notes.push_back(fmt::format("the lab kernel reports a stall at {:.0f} s: {}", t, s->line));
      // A repeated report of the same stall keeps the first one's time.
      if (stall_at_ < 0 || last_life_ >= stall_at_) {
        stall_line_ = s->line;
        stall_at_ = t;
      }
    }
    scanned_ = end + 1;
  }

  if (stall_at_ >= 0 && last_life_ < stall_at_ && t - stall_at_ >= limits_.stall_grace_s) {
    v.stalled = fmt::format("the lab machine stalled: its kernel reported \"{}\" and no sign of life followed for "
                            "{:.0f} s",
                            stall_line_, t - stall_at_);
  } else if (t - last_life_ >= limits_.silence_s) {
    v.stalled = fmt::format("the lab machine stalled: no sign of life (heartbeat or command output) for {:.0f} s "
                            "(--lab-silence {:.0f}){}",
                            t - last_life_, limits_.silence_s,
                            uptime_.empty() ? "" : fmt::format("; its last heartbeat said uptime {} s", uptime_));
  } else if (t - last_note_ >= limits_.progress_note_s) {
    last_note_ = t;
    v.notes.push_back(fmt::format("still running at {:.0f} s: lab uptime {} s, the command's last output {:.0f} s ago",
                                  t, uptime_.empty() ? "?" : uptime_, t - last_output_));
  }
  return v;
}

}  // namespace kvmbench::host
