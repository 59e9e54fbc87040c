// Whether the running kernel uses RMPOPT, from what it says in its log.
// CPUID 0x80000025 EDX[0] says only that the CPU has the instruction (and
// from v3 on the feature has no /proc/cpuinfo name). The RMPOPT series
// (Ashish Kalra, arch/x86/virt/svm/sev.c, pr_fmt "SEV-SNP: ") prints, by
// revision:
//   v1-v2  "RMP optimizations enabled on physical address range @1GB
//          alignment [0x%016llx - 0x%016llx]" on every sweep (rmpopt_kthread)
//   v1-v3  "RMPOPT optimizations not enabled, segmented RMP required"
//          (later revisions clear the feature without a word)
//   v3+    "Attempt RMP optimizations on physical address range @1GB
//          alignment [0x%016llx - 0x%016llx]" from rmpopt_work_handler: when
//          ccp initialises SNP and on every re-optimisation, not once at boot
//   v8+    "RMPOPT coverage limited to 2TB; memory above 0x%llx not
//          optimized" when the physical address range goes past 2 TiB
// and v3 adds debugfs rmpopt/rmpopt-table (per-CPU state). So the whole log
// is read, every line of each kind is counted, and the last boot in a log
// that holds several (dmesg of a saved file, journalctl -k without -b) is
// the one that counts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::host {

struct RmpoptBootState {
  enum class State {
    not_checked,    // not looked for (the CPU has no SEV-SNP)
    unreadable,     // the kernel log could not be read (detail says why)
    no_line,        // the log holds none of the series' lines
    not_enabled,    // "RMPOPT optimizations not enabled, segmented RMP required"
    enabled,        // a range line ("Attempt RMP optimizations ..." or v1-v2's "... enabled ...")
    contradictory,  // both in one boot (detail quotes the other line)
  };
  State state = State::not_checked;
  std::string line;      // the deciding line as printed (the last range line, or the not-enabled one)
  std::string detail;    // unreadable: the error; contradictory: the other line
  std::string revision;  // "v3+" (Attempt ...), "v1-v2" (enabled ...), "" when neither
  int range_lines = 0;   // range lines in the boot read: one per sweep (SNP init, each re-optimisation)
  // The range of the last range line, when it gives "0x<start> - 0x<end>".
  std::optional<unsigned long long> range_start, range_end;
  // v8+: the kernel's own coverage line and the address above which memory
  // is not optimised.
  std::string coverage_line;
  std::optional<unsigned long long> not_optimized_above;
  int boots = 1;         // boots in the log; only the last is read
  // debugfs rmpopt/rmpopt-table (v3-v8): "" not read or absent, else what
  // was found there (rmpopt_table_summary(), or why it could not be read).
  std::string debugfs;
  std::string from;      // the log read: "/dev/kmsg", or the file given with --kmsg
};

std::string_view to_string(RmpoptBootState::State s);
// Throws std::invalid_argument for a name to_string() does not give.
RmpoptBootState::State rmpopt_boot_state_from_name(std::string_view name);

// Pure: the state the log text says. Lines may carry what a capture puts
// in front of a message (dmesg, dmesg -T, journalctl -k, /dev/kmsg records,
// mail quotes); a new boot starts where the uptime goes backwards, at a
// journalctl "-- Boot" line or at a second "Linux version" line.
RmpoptBootState rmpopt_boot_state_from_log(std::string_view log);

// Why the rmpopt document preset cannot run, from the state ("" when
// enabled): the kernel's own diagnosis, not a guess from CPUID.
std::string rmpopt_boot_refusal(const RmpoptBootState& s);

// Pure: debugfs rmpopt/rmpopt-table's text in a phrase: "N regions of 1 GiB
// listed, M optimised on some CPU" (its lines read "Memory @  2GB: CPU(s):
// 0-1023" or "...: CPU(s): none").
std::string rmpopt_table_summary(std::string_view table);

// One line on what the kernel said, for the probe and the plan ("v3+: 2
// sweeps, range 0x0 - 0x1ffffffffff; ..."); "" when nothing was seen.
std::string rmpopt_boot_summary(const RmpoptBootState& s);

// A captured kernel log (dmesg, dmesg -T, journalctl -k, a /dev/kmsg dump),
// given with --kmsg FILE for a host that is described rather than probed:
// its state, `from` set to the path. Throws std::invalid_argument naming the
// file when it cannot be read, is empty or is not a kernel log
// (parsers::looks_like_kernel_log).
RmpoptBootState rmpopt_boot_state_from_file(const std::string& path);

// Live: reads the whole kernel log (/dev/kmsg from its first record, without
// waiting) and returns its state; unreadable with the reason when /dev/kmsg
// cannot be opened (root is needed when kernel.dmesg_restrict=1). Then
// looks at `debugfs_table` (where debugfs is mounted).
RmpoptBootState read_rmpopt_boot_state(const std::string& device = "/dev/kmsg",
                                       const std::string& debugfs_table = "/sys/kernel/debug/rmpopt/rmpopt-table");

}  // namespace kvmbench::host
