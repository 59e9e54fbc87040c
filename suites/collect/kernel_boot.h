// What a preset needs of the boot (suites/framework/boot.h), from what the host's
// probe recorded: the kvm module's parameters and the VM types' memory
// attributes. Pure over HostCaps.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "suites/framework/boot.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

// kvm.vm_memory_attributes as this boot has it: true (Y, the default),
// false (N); nullopt where the kvm module has no such parameter (a kernel
// without the in-place conversion series: the VM-wide attributes only).
std::optional<bool> vm_memory_attributes(const HostCaps& caps);

// Each says what a boot must have where the boot decides, and any boot
// where it does not: the kernel lacks the series, or KVM offers none of the
// VM types (`types`) the preset would use, which no boot changes.

// Conversions through KVM_SET_MEMORY_ATTRIBUTES2 on a guest_memfd of a VM
// of one of `types` (the series' per-file attributes): a boot with
// kvm.vm_memory_attributes=0.
BootNeed per_file_attributes_boot(const HostCaps& caps, const std::vector<std::string>& types);

// QEMU's confidential guests of VM type `type` (`what`: "SEV-SNP guests"),
// whose private memory QEMU sets up through the VM-wide
// KVM_SET_MEMORY_ATTRIBUTES: a boot without kvm.vm_memory_attributes=0.
BootNeed vm_wide_attributes_boot(const HostCaps& caps, const std::string& type, const std::string& what);

// "kvm.vm_memory_attributes=Y" (the setting as probed), or "" where the
// parameter does not exist.
std::string boot_settings(const HostCaps& caps);

}  // namespace kvmbench::suites
