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

namespace kvmbench::suites::asid {

struct FlushByAsidCheck {
  std::string refusal;    // "" when the run can go ahead; else why this boot cannot give what was asked
  std::string note_part;  // a skipped part to record ("flushbyasid=off" or "flushbyasid=on"), "" for none
  std::string note;       // its reason
};

// `wanted`: "as-booted", "on" or "off" (std::invalid_argument otherwise);
// `state`: "yes", "no" or "unknown" (/proc/cpuinfo, or a replay's capture);
// `clearcpuid`: the host's command line has clearcpuid=flushbyasid;
// `replay`: the state is a capture's, not this host's. Pure.
FlushByAsidCheck check_flushbyasid(const std::string& wanted, const std::string& state, bool clearcpuid,
                                   bool replay);

// The documented two-boot comparison, one sentence.
inline constexpr const char* kFlushByAsidTwoBoot =
    "boot the host with clearcpuid=flushbyasid on its kernel command line, run `kvmbench run asid --set "
    "flushbyasid=off` there, and `kvmbench compare` it with a run from a boot without it";

}  // namespace kvmbench::suites::asid
