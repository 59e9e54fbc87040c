// What the host offers a suite (KVM, CPU features, QEMU, the guest kernel,
// the confidential-computing state), probed once per kvmbench invocation,
// or read from another host's `kvmbench probe --json` (host_caps.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hostlib/facts/confidential_host.h"
#include "hostlib/kvm/kvm_probe.h"

namespace kvmbench::suites {

// What the host offers, probed once per kvmbench invocation.
struct HostCaps {
  host::KvmStatus kvm;
  std::vector<std::string> cpu_features;  // lower case: svm, npt, sev_snp, rmpopt, ...
  std::string qemu_path;                  // empty when QEMU is missing
  std::vector<std::string> qemu_accels;   // "kvm", "tcg"
  std::string qemu_error;                 // why asking QEMU failed (a timeout, ...), or ""
  // The confidential-guest objects QEMU has ("sev-snp-guest", "tdx-guest"),
  // from a host description's probe; nullopt when not asked (a live run's
  // launcher asks QEMU itself before each confidential guest).
  std::optional<std::vector<std::string>> qemu_objects;
  std::string guest_kernel;               // a kernel image for TCG guests, or empty
  unsigned online_cpus = 1;
  unsigned long long memory_bytes = 0;
  host::ConfidentialHost confidential;   // C-bit, FLUSHBYASID as the kernel sees it, kernel log, RMPOPT at boot
  nlohmann::json metadata;                // everything, for meta.json
  // Why a measurement here is `emulated` although the preset measures
  // hardware (the CPU is QEMU TCG: the emulated lab); "" on real hardware.
  std::string emulated_reason;

  bool has_feature(const std::string& f) const;
  bool qemu_has_accel(const std::string& a) const;
};

// Probes the host (KVM, CPU features, QEMU, guest kernel); bounded in time.
HostCaps probe_host_caps();

// For `run --dry-run` on this host: what probe_host_caps() finds without an
// ioctl and without starting a program (CPUID, /proc, /sys, the kernel
// log, where QEMU and the guest kernel are). KVM is reported as not probed,
// with the way to plan with it (--host FILE from `kvmbench probe --json`).
HostCaps probe_host_caps_without_ioctls();

// Another host, from its `kvmbench probe --json`. Throws
// std::invalid_argument naming the key for a description without "cpu" or
// "kvm" or with a value of the wrong type.
HostCaps host_caps_from_probe_json(const nlohmann::json& probe);

}  // namespace kvmbench::suites
