// Reasons a preset cannot run, composed from the host's capabilities. Each
// returns "" when the requirement is met, else a sentence saying what is
// missing, so `kvmbench list` and `kvmbench run` can print it verbatim.
#pragma once

#include <initializer_list>
#include <string>

#include "suites/framework/suite.h"

namespace kvmbench::suites {

std::string require_cpu_feature(const HostCaps& caps, const std::string& feature, const std::string& why);
std::string require_kvm_runs_guests(const HostCaps& caps);
std::string require_qemu(const HostCaps& caps, const std::string& accel);
std::string require_guest_kernel(const HostCaps& caps);
std::string require_guest_memfd(const HostCaps& caps);
std::string require_vm_type(const HostCaps& caps, const std::string& type);
// A VM of `type` takes KVM_MEMORY_ATTRIBUTE_PRIVATE through the VM-wide
// KVM_SET_MEMORY_ATTRIBUTES (KVM_CAP_MEMORY_ATTRIBUTES on its fd, as the
// probe recorded it), which `who` (QEMU's confidential guests) needs; met
// when the probe did not record it (the launcher asks again).
std::string require_vm_private_memory(const HostCaps& caps, const std::string& type, const std::string& who);
// /dev/kmsg can be read (the presets that take figures from kernel log lines).
std::string require_kernel_log(const HostCaps& caps);

// Host-side presets: any Linux host.
std::string runs_anywhere(const HostCaps& caps);
// Smoke presets: QEMU with TCG and a guest kernel.
std::string require_tcg_guest(const HostCaps& caps);

// The first non-empty reason, or "".
std::string first_reason(std::initializer_list<std::string> reasons);

}  // namespace kvmbench::suites
