#include "suites/collect/kernel_boot.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench::suites {

namespace {

constexpr const char* kParam = "kvm.vm_memory_attributes";

std::optional<std::string> kvm_parameter(const HostCaps& caps, const char* name) {
  const auto& mods = caps.metadata.value("kvm_modules", nlohmann::json::object());
  if (!mods.is_object() || !mods.contains("kvm") || !mods["kvm"].is_object()) return std::nullopt;
  const auto& params = mods["kvm"].value("parameters", nlohmann::json::object());
  if (!params.is_object() || !params.contains(name) || !params[name].is_string()) return std::nullopt;
  return params[name].get<std::string>();
}

bool offers_any(const HostCaps& caps, const std::vector<std::string>& types) {
  for (const auto& t : types)
    if (std::find(caps.kvm.vm_types.begin(), caps.kvm.vm_types.end(), t) != caps.kvm.vm_types.end()) return true;
  return false;
}

}  // namespace

std::optional<bool> vm_memory_attributes(const HostCaps& caps) {
  const auto v = kvm_parameter(caps, "vm_memory_attributes");
  if (!v) return std::nullopt;
  return !(*v == "N" || *v == "n" || *v == "0");
}

BootNeed per_file_attributes_boot(const HostCaps& caps, const std::vector<std::string>& types) {
  const auto on = vm_memory_attributes(caps);
  // No series: whether the ioctl is there is the probe's answer, not the boot's.
  if (!on || !offers_any(caps, types)) return {};
  return {fmt::format("{}=0", kParam), !*on,
          fmt::format("KVM_SET_MEMORY_ATTRIBUTES2 on a guest_memfd returns ENOTTY while the kvm module's "
                      "vm_memory_attributes is Y (the in-place conversion series' default; read-only, so only "
                      "the kernel command line changes it); this boot has {}",
                      *on ? "Y" : "N")};
}

BootNeed vm_wide_attributes_boot(const HostCaps& caps, const std::string& type, const std::string& what) {
  const auto on = vm_memory_attributes(caps);
  if (!on || !offers_any(caps, {type})) return {};
  return {fmt::format("{}=1", kParam), *on,
          fmt::format("QEMU sets up the private memory of {} through the VM-wide KVM_SET_MEMORY_ATTRIBUTES, which "
                      "the in-place conversion series turns off with vm_memory_attributes=N (QEMU exits: \"cannot "
                      "set up private guest memory ...: KVM does not support private memory attribute\"); Y is the "
                      "default, and this boot has {}",
                      what, *on ? "Y" : "N")};
}

std::string boot_settings(const HostCaps& caps) {
  const auto on = vm_memory_attributes(caps);
  return on ? fmt::format("{}={}", kParam, *on ? "Y" : "N") : "";
}

}  // namespace kvmbench::suites
