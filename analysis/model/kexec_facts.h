// What `kvmbench ab`'s preflight finds out about kexec on a machine and
// about each kernel it is to boot. Plain data: hostlib/state/kexec.h probes
// it, analysis/verdicts/ab_boot.h decides on it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kvmbench::ab {

// The machine.
struct KexecHost {
  bool kexec_tool = true;         // kexec-tools' kexec on PATH
  bool root = true;               // effective uid 0
  bool kexec_core = true;         // /sys/kernel/kexec_loaded exists (CONFIG_KEXEC_CORE)
  bool load_disabled = false;     // kernel.kexec_load_disabled = 1
  std::string lockdown;           // the selected word of /sys/kernel/security/lockdown, "" where not reported
  bool tdx_pw_mce = false;        // the tdx_pw_mce bug flag in /proc/cpuinfo
  bool tdx_initialised = false;   // TDX is on in this boot (kvm_intel.tdx=Y)
};

// One kernel the experiment boots.
struct KexecKernel {
  std::string side;               // "base", "cand"
  std::string spec;               // as given
  std::string image, initrd;      // initrd "" for none
  std::string release;            // "" where not known (a bzImage)
  std::string cmdline;            // what it boots with
  bool image_signed = false;      // a PE image with an Authenticode signature
  // The trial load's outcome: nullopt not tried, "" loaded (and unloaded),
  // else kexec's own words.
  std::optional<std::string> trial_load;
};

// The selected word of /sys/kernel/security/lockdown ("none [integrity]
// confidentiality" -> "integrity"); "" for an empty text.
std::string lockdown_mode(std::string_view text);

// Whether an image is loaded with kexec_file_load (`kexec -s`): under
// lockdown kexec_load is refused for every image, and a signed image is
// what kexec_file_load takes where the kernel checks signatures.
inline bool use_kexec_file_load(std::string_view lockdown, bool image_signed) {
  return image_signed || (!lockdown.empty() && lockdown != "none");
}

}  // namespace kvmbench::ab
