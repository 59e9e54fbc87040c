#include "suites/framework/requirements.h"

#include "hostlib/kvm/kvm_uapi.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench::suites {

std::string require_cpu_feature(const HostCaps& caps, const std::string& feature, const std::string& why) {
  if (caps.has_feature(feature)) return "";
  return fmt::format("CPU lacks {} ({})", feature, why);
}

std::string require_kvm_runs_guests(const HostCaps& caps) {
  if (!caps.kvm.present) return "KVM is not available: " + caps.kvm.reason;
  if (!caps.kvm.runs_guests) return "KVM cannot run guests here: " + caps.kvm.reason;
  return "";
}

std::string require_qemu(const HostCaps& caps, const std::string& accel) {
  if (caps.qemu_path.empty()) return "qemu-system-x86_64 not found (Debian package qemu-system-x86)";
  if (caps.qemu_has_accel(accel)) return "";
  // Asking QEMU failed: say that, not that it lacks the accelerator.
  if (!caps.qemu_error.empty())
    return fmt::format("QEMU at {} could not be asked for its accelerators: {}", caps.qemu_path, caps.qemu_error);
  return fmt::format("QEMU at {} lacks the {} accelerator", caps.qemu_path, accel);
  return "";
}

std::string require_guest_kernel(const HostCaps& caps) {
  if (caps.guest_kernel.empty())
    return "no guest kernel (run scripts/fetch-guest-kernel.sh, or set KVMBENCH_GUEST_KERNEL)";
  return "";
}

std::string require_guest_memfd(const HostCaps& caps) {
  if (!caps.kvm.present) return "KVM is not available: " + caps.kvm.reason;
  if (!caps.kvm.guest_memfd) return "KVM lacks guest_memfd (KVM_CAP_GUEST_MEMFD)";
  return "";
}

std::string require_vm_type(const HostCaps& caps, const std::string& type) {
  if (!caps.kvm.present) return "KVM is not available: " + caps.kvm.reason;
  const auto& t = caps.kvm.vm_types;
  if (std::find(t.begin(), t.end(), type) == t.end())
    return fmt::format("KVM does not offer the {} VM type (KVM_CAP_VM_TYPES: {})", type,
                       t.empty() ? std::string("none") : fmt::format("{}", fmt::join(t, ", ")));
  return "";
}

std::string require_vm_private_memory(const HostCaps& caps, const std::string& type, const std::string& who) {
  const auto it = caps.kvm.memory_attributes_by_vm_type.find(type);
  if (it == caps.kvm.memory_attributes_by_vm_type.end()) return "";
  if (it->second & KVM_MEMORY_ATTRIBUTE_PRIVATE) return "";
  return fmt::format("{} need the PRIVATE memory attribute through the VM-wide KVM_SET_MEMORY_ATTRIBUTES, and an {} "
                     "VM does not take it (KVM_CAP_MEMORY_ATTRIBUTES on its fd = {:#x}): QEMU would exit with "
                     "\"cannot set up private guest memory\"",
                     who, type, it->second);
}

std::string require_kernel_log(const HostCaps& caps) {
  if (caps.confidential.kmsg_error.empty()) return "";
  return "cannot read the kernel log: " + caps.confidential.kmsg_error;
}

std::string runs_anywhere(const HostCaps&) { return ""; }

std::string require_tcg_guest(const HostCaps& caps) {
  return first_reason({require_qemu(caps, "tcg"), require_guest_kernel(caps)});
}

std::string first_reason(std::initializer_list<std::string> reasons) {
  for (const auto& r : reasons)
    if (!r.empty()) return r;
  return "";
}

}  // namespace kvmbench::suites
