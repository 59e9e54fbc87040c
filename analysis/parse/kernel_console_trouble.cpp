#include "analysis/parse/kernel_console_trouble.h"

#include <array>

namespace kvmbench {

namespace {

constexpr std::array<std::string_view, 8> kStallMarks = {
    "BUG: soft lockup",          // watchdog: BUG: soft lockup - CPU#0 stuck for 22s!
    "hard LOCKUP",               // watchdog: Watchdog detected hard LOCKUP on cpu 0
    "detected stall",            // rcu: INFO: rcu_sched detected stalls on CPUs/tasks
    "detected stalls",
    "self-detected stall",       // rcu: INFO: rcu_preempt self-detected stall on CPU
    "rcu_sched kthread starved", // the RCU grace-period kthread got no CPU
    "blocked for more than",     // INFO: task depmod:42 blocked for more than 120 seconds.
    "BUG: workqueue lockup",
};

constexpr std::array<std::string_view, 7> kFaultMarks = {
    "Oops:",                        // Oops: 0000 [#1] PREEMPT SMP NOPTI
    "kernel BUG at",
    "BUG: ",                        // BUG: kernel NULL pointer dereference, ...
    "general protection fault",
    "double fault",                 // traps: PANIC: double fault, error_code: 0x0
    "Kernel panic - not syncing",
    "Unable to handle kernel",
};

bool is_stall(std::string_view line) {
  for (auto m : kStallMarks)
    if (line.find(m) != std::string_view::npos) return true;
  return false;
}

bool is_fault(std::string_view line) {
  if (is_stall(line)) return false;  // "BUG: soft lockup" is a stall, not a fault
  for (auto m : kFaultMarks)
    if (line.find(m) != std::string_view::npos) return true;
  return false;
}

template <typename Pred>
std::optional<ConsoleTrouble> first_line(std::string_view text, Pred pred) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (pred(line)) return ConsoleTrouble{pos, std::string(line)};
    pos = nl + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ConsoleTrouble> first_kernel_fault(std::string_view console) { return first_line(console, is_fault); }

std::optional<ConsoleTrouble> first_kernel_stall(std::string_view console) { return first_line(console, is_stall); }

std::string console_excerpt(std::string_view console, std::size_t offset, std::size_t max_lines) {
  if (offset >= console.size()) return {};
  std::string_view rest = console.substr(offset);
  std::size_t end = 0;
  for (std::size_t lines = 0; end < rest.size() && lines < max_lines; ++lines) {
    std::size_t nl = rest.find('\n', end);
    end = nl == std::string_view::npos ? rest.size() : nl + 1;
  }
  std::string_view out = rest.substr(0, end);
  if (!out.empty() && out.back() == '\n') out.remove_suffix(1);
  return std::string(out);
}

}  // namespace kvmbench
