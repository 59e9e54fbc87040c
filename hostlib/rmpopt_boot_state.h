// Whether the running kernel turned RMPOPT on at boot, from what it said
// in its log. CPUID 0x80000025 EDX[0] says only that the CPU has the
// instruction; the RMPOPT series refuses to use it without segmented RMP
// (v3 4/6: -EINVAL unless MSR_AMD64_RMP_CFG has SEG_RMP_ENABLED) and covers
// at most 2 TB (v4), and it says which at boot:
//   "RMPOPT optimizations not enabled, segmented RMP required"
//   "RMP optimizations enabled on physical address range ..."
// (the two lines as issue 14 quotes them; the research note did not see the
// hunks that print them, so only these fragments are matched, and the rest
// of the line is kept as the kernel printed it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::host {

struct RmpoptBootState {
  enum class State {
    not_checked,  // not looked for (the CPU has no SEV-SNP)
    unreadable,   // the kernel log could not be read (detail says why)
    no_line,      // the log holds neither line
    not_enabled,  // "RMPOPT optimizations not enabled, segmented RMP required"
    enabled,      // "RMP optimizations enabled on physical address range"
  };
  State state = State::not_checked;
  std::string line;    // the kernel's line, as printed (enabled / not_enabled)
  std::string detail;  // unreadable: the error
  // enabled: the last address of the range, when the line gives one as
  // "0x<start> - 0x<end>".
  std::optional<unsigned long long> range_end;
};

std::string_view to_string(RmpoptBootState::State s);
// Throws std::invalid_argument for a name to_string() does not give.
RmpoptBootState::State rmpopt_boot_state_from_name(std::string_view name);

// Pure: the state the log text says (the last of the two lines wins; a log
// with neither is no_line).
RmpoptBootState rmpopt_boot_state_from_log(std::string_view log);

// Why the rmpopt document preset cannot run, from the state ("" when
// enabled): the kernel's own diagnosis, not a guess from CPUID.
std::string rmpopt_boot_refusal(const RmpoptBootState& s);

// Live: reads the whole kernel log (/dev/kmsg from its first record, without
// waiting) and returns its state; unreadable with the reason when /dev/kmsg
// cannot be opened (root is needed when kernel.dmesg_restrict=1).
RmpoptBootState read_rmpopt_boot_state(const std::string& device = "/dev/kmsg");

}  // namespace kvmbench::host
