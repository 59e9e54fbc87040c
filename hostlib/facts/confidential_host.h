// What the confidential-guest paths need to know about a host beyond the
// CPU features and the KVM probe, found without a single ioctl (CPUID,
// /proc and the kernel log only), so that `run --dry-run` may gather it and
// a lab machine's `kvmbench probe --json` carries it to another machine
// (key "confidential"):
//   - the SEV C-bit position and reduced physical bits (CPUID 0x8000001F
//     EBX), which QEMU's sev-snp-guest must be given exactly;
//   - FLUSHBYASID as the kernel uses it: /proc/cpuinfo flags, not raw CPUID,
//     since `clearcpuid=flushbyasid` on the kernel command line hides it
//     from the kernel (and KVM: svm.c tests static_cpu_has) but not from
//     CPUID;
//   - whether /dev/kmsg can be read (the rmpopt and make_shared document
//     presets take their figures from kernel log lines);
//   - what the kernel said about RMPOPT at boot (rmpopt_boot_state.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hostlib/facts/cpuid.h"
#include "hostlib/facts/rmpopt_boot_state.h"

namespace kvmbench::host {

struct ConfidentialHost {
  std::optional<SevEncryptionBits> sev_bits;  // nullopt: no SEV, or not known
  std::string flushbyasid = "unknown";        // /proc/cpuinfo flags: "yes", "no", "unknown"
  bool clearcpuid_flushbyasid = false;        // /proc/cmdline: clearcpuid= lists flushbyasid
  std::string kmsg_error = "not checked";     // "" when /dev/kmsg can be read, else why not
  RmpoptBootState rmpopt;
};

// Pure: "yes"/"no" for `flag` in the first "flags" line of /proc/cpuinfo
// text, "unknown" when there is none.
std::string cpuinfo_flag_state(std::string_view proc_cpuinfo, std::string_view flag);

// Pure: whether a kernel command line's clearcpuid= (a comma-separated list;
// kernel-parameters.txt: it takes /proc/cpuinfo names or bit numbers) names
// `flag`. Only names are matched.
bool cmdline_clears_cpu_flag(std::string_view cmdline, std::string_view flag);

// Live: CPUID, /proc/cpuinfo, /proc/cmdline, /dev/kmsg (opened and read
// from its start; the RMPOPT lines are looked for only when the CPU has
// SEV-SNP).
ConfidentialHost probe_confidential_host();

nlohmann::json to_json(const ConfidentialHost& c);
// From the "confidential" object of `kvmbench probe --json`; a null or
// absent object (an older probe) gives the defaults above (everything
// unknown). Throws std::invalid_argument naming the key for a value of the
// wrong type.
ConfidentialHost confidential_host_from_json(const nlohmann::json& j);

}  // namespace kvmbench::host
