// asid: FLUSHBYASID on and off. KVM flushes one ASID's TLB entries
// (TLB_CONTROL_FLUSH_ASID) only when the kernel has the feature (svm.c,
// svm_flush_tlb_asid: static_cpu_has(X86_FEATURE_FLUSHBYASID)); it has no
// module parameter for it. The kernel loses it with `clearcpuid=flushbyasid`
// on its command line (kernel-parameters.txt: clearcpuid takes
// /proc/cpuinfo names; it taints the kernel), which raw CPUID does not show.
// So the state is read from /proc/cpuinfo flags, and "off" on a CPU that has
// it is a second boot: a two-boot comparison of two runs.
#pragma once

#include <string>
#include <string_view>

#include "hostlib/facts/confidential_host.h"

namespace kvmbench::suites::asid {

// What the parameter flushbyasid asks for.
enum class FlushByAsidWanted { as_booted, on, off };
// Whether a boot's kernel has FLUSHBYASID.
enum class FlushByAsidState { yes, no, unknown };

// The parameter's text: "as-booted", "on" or "off"; std::invalid_argument otherwise.
FlushByAsidWanted parse_flushbyasid_wanted(const std::string& text);
// "yes", "no" or "unknown": as `kvmbench probe` and the samples (extra "flushbyasid") write it.
std::string_view to_string(FlushByAsidState state);

// FLUSHBYASID as the measured boot had it, with the words its messages use.
struct FlushByAsidBoot {
  FlushByAsidState state = FlushByAsidState::unknown;
  bool clearcpuid = false;  // its kernel command line hides it (clearcpuid=flushbyasid)
  std::string whose;        // "this boot", "the captured host"
  std::string unread;       // where an unknown state was looked for, in a refusal: " (no flags line ...)"
  std::string unread_note;  // the same in the note of a run that goes ahead
};

// This boot's, as probed (/proc/cpuinfo flags and /proc/cmdline; or the
// --host file a dry run plans for).
FlushByAsidBoot this_boot(const host::ConfidentialHost& c);
// A replay's, from its capture flushbyasid.txt (unknown without one); the
// captured host's command line is not captured.
FlushByAsidBoot captured_boot(FlushByAsidState state);

struct FlushByAsidCheck {
  std::string refusal;    // "" when the run can go ahead; else why this boot cannot give what was asked
  std::string note_part;  // a skipped part to record ("flushbyasid=off" or "flushbyasid=on"), "" for none
  std::string note;       // its reason
  bool note_not_offered = false;  // the part is one this CPU never offers (no boot gives it)
};

// What `wanted` comes to on `boot`. Pure.
FlushByAsidCheck check_flushbyasid(FlushByAsidWanted wanted, const FlushByAsidBoot& boot);

// The documented two-boot comparison, one sentence.
inline constexpr const char* kFlushByAsidTwoBoot =
    "boot the host with clearcpuid=flushbyasid on its kernel command line, run `kvmbench run asid --set "
    "flushbyasid=off` there, and `kvmbench compare` it with a run from a boot without it";

}  // namespace kvmbench::suites::asid
