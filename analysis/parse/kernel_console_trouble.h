// What a kernel's console says went wrong, for a report that starts where
// the trouble starts instead of at the registers printed last:
//  - a fault: Oops, BUG (other than the lockups below), a general
//    protection or double fault, a kernel panic;
//  - a stall the kernel noticed itself: a soft or hard lockup, an RCU stall,
//    a task blocked for too long (the hung-task detector), a workqueue
//    lockup.
// Pure: it reads text only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kvmbench {

struct ConsoleTrouble {
  std::size_t offset = 0;  // where its line begins in the console
  std::string line;        // that line (without its newline)
};

std::optional<ConsoleTrouble> first_kernel_fault(std::string_view console);
std::optional<ConsoleTrouble> first_kernel_stall(std::string_view console);

// The console from `offset` on, at most `max_lines` lines (the final
// newline not counted).
std::string console_excerpt(std::string_view console, std::size_t offset, std::size_t max_lines);

}  // namespace kvmbench
