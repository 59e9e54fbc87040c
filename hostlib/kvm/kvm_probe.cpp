#include "hostlib/kvm/kvm_probe.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hostlib/kvm/gmem_conversion.h"
#include "hostlib/kvm/kvm_test_guest.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "hostlib/kvm/private_vm.h"

namespace kvmbench::host {

namespace {

// The KVM vendor module that is loaded, from /sys/module (works without root).
std::string loaded_kvm_module() {
  for (const char* m : {"kvm_amd", "kvm_intel", "kvm_pvm"})
    if (std::filesystem::exists(std::filesystem::path("/sys/module") / m)) return m;
  return "";
}

std::vector<std::string> vm_type_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (std::uint32_t t = 0; t < 64; ++t)
    if (mask & (1ULL << t)) names.push_back(vm_type_name(t));
  return names;
}

// Fills runs_guests and reason from the test guests (kvm_test_guest.h).
void try_guests(const Kvm& kvm, KvmStatus& s, int timeout_ms) {
  std::vector<GuestCheck> checks;
  try {
    checks = run_guest_checks(kvm, timeout_ms);
  } catch (const std::exception& e) {
    s.reason = std::string("setting up a test guest failed: ") + e.what();
    return;
  }
  std::vector<std::string> passed;
  for (const GuestCheck& c : checks) {
    s.guest_checks.push_back(fmt::format("{}: {}", c.name, c.ok ? "ok" : "FAILED"));
    if (c.ok) {
      passed.push_back("the " + c.name + " guest");
      continue;
    }
    std::string why = fmt::format("the {} test guest did not run: {}", c.name, c.detail);
    if (!passed.empty()) why = fmt::format("{} ran, but {}", fmt::join(passed, " and "), why);
    if (s.module == "kvm_pvm") why += "; kvm_pvm is a paravirtual KVM and cannot run ordinary guests";
    s.reason = why;
    return;
  }
  s.runs_guests = true;
  s.reason = "ok";
}

}  // namespace

KvmStatus probe_kvm(int guest_timeout_ms) {
  KvmStatus s;
  s.module = loaded_kvm_module();
  std::optional<Kvm> kvm;
  try {
    kvm.emplace(Kvm::open());
  } catch (const KvmError& e) {
    s.reason = fmt::format("/dev/kvm cannot be opened: {}", e.what());
    return s;
  }
  try {
    int api = kvm->api_version();
    if (api != KVM_API_VERSION) {
      s.reason = fmt::format("KVM_GET_API_VERSION returned {}, expected {}", api, KVM_API_VERSION);
      return s;
    }
    s.present = true;
    s.vm_types_mask = static_cast<std::uint64_t>(kvm->check_extension(KVM_CAP_VM_TYPES));
    if (s.vm_types_mask == 0) s.vm_types_mask = 1;  // without the cap only "default" exists
    s.vm_types = vm_type_names(s.vm_types_mask);
    s.guest_memfd = kvm->check_extension(KVM_CAP_GUEST_MEMFD) > 0;
    s.guest_memfd_flags = static_cast<std::uint64_t>(kvm->check_extension(KVM_CAP_GUEST_MEMFD_FLAGS));
    if (s.guest_memfd_flags & GUEST_MEMFD_FLAG_MMAP) s.guest_memfd_flag_names.push_back("mmap");
    if (s.guest_memfd_flags & GUEST_MEMFD_FLAG_INIT_SHARED)
      s.guest_memfd_flag_names.push_back("init_shared");
    s.memory_attributes =
        static_cast<std::uint64_t>(kvm->check_extension(KVM_CAP_MEMORY_ATTRIBUTES));
    s.pre_fault_memory = kvm->check_extension(KVM_CAP_PRE_FAULT_MEMORY) > 0;
    s.user_memory2 = kvm->check_extension(KVM_CAP_USER_MEMORY2) > 0;
    try {
      s.guest_phys_bits = guest_phys_bits(kvm->supported_cpuid());
    } catch (const KvmError&) {
      // 0: not known (a KVM without KVM_GET_SUPPORTED_CPUID's answer); only
      // a TD's plan reads it.
    }
    // Private-memory conversions are a property of the VM type, so ask each
    // type's own VM fd.
    for (std::uint32_t t = 0; t < 64; ++t) {
      if (!(s.vm_types_mask & (1ULL << t))) continue;
      try {
        Vm vm = Vm::create(*kvm, t);
        const ConversionPaths p = probe_conversion_paths(vm);
        const std::string name = vm_type_name(t);
        s.memory_attributes_by_vm_type[name] = p.vm_attributes;
        if (p.vm_attributes & KVM_MEMORY_ATTRIBUTE_PRIVATE) s.private_memory_vm_types.push_back(name);
        if (p.gmem_attributes2)
          s.gmem_attributes2_vm_types.push_back(name);
        else
          s.gmem_attributes2_notes.push_back(name + ": " + p.gmem_attributes2_detail);
      } catch (const KvmError& e) {
        s.vm_type_errors.push_back(fmt::format("{}: {}", vm_type_name(t), e.what()));
      }
    }
  } catch (const KvmError& e) {
    s.reason = fmt::format("asking KVM for its capabilities failed: {}", e.what());
    return s;
  }
  if (s.vm_types_mask & (1ULL << KVM_X86_SNP_VM)) s.sev_device_error = sev_device_error();
  try_guests(*kvm, s, guest_timeout_ms);
  return s;
}

nlohmann::json to_json(const KvmStatus& s) {
  return {
      {"present", s.present},
      {"module", s.module},
      {"runs_guests", s.runs_guests},
      {"reason", s.reason},
      {"guest_checks", s.guest_checks},
      {"vm_types", s.vm_types},
      {"vm_types_mask", s.vm_types_mask},
      {"vm_type_errors", s.vm_type_errors},
      {"guest_memfd", s.guest_memfd},
      {"guest_memfd_flags", s.guest_memfd_flag_names},
      {"guest_memfd_flags_mask", s.guest_memfd_flags},
      {"memory_attributes", s.memory_attributes},
      {"private_memory_vm_types", s.private_memory_vm_types},
      {"pre_fault_memory", s.pre_fault_memory},
      {"user_memory2", s.user_memory2},
      {"memory_attributes_by_vm_type", s.memory_attributes_by_vm_type},
      {"gmem_attributes2_vm_types", s.gmem_attributes2_vm_types},
      {"gmem_attributes2_notes", s.gmem_attributes2_notes},
      {"sev_device_error", s.sev_device_error},
      {"guest_phys_bits", s.guest_phys_bits},
  };
}

namespace {

[[noreturn]] void bad_key(const std::string& key, const char* expected) {
  throw std::invalid_argument(fmt::format("kvm.{}: expected {}", key, expected));
}

template <typename T>
void read_key(const nlohmann::json& j, const std::string& key, T& out, const char* expected) {
  if (!j.contains(key) || j[key].is_null()) return;
  try {
    out = j[key].get<T>();
  } catch (const nlohmann::json::exception&) {
    bad_key(key, expected);
  }
}

}  // namespace

KvmStatus kvm_status_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("kvm: expected an object");
  if (!j.contains("present") || !j["present"].is_boolean()) bad_key("present", "true or false");
  KvmStatus s;
  s.present = j["present"].get<bool>();
  read_key(j, "module", s.module, "a string");
  read_key(j, "runs_guests", s.runs_guests, "true or false");
  read_key(j, "reason", s.reason, "a string");
  read_key(j, "guest_checks", s.guest_checks, "a list of strings");
  read_key(j, "vm_types", s.vm_types, "a list of strings");
  read_key(j, "vm_types_mask", s.vm_types_mask, "a non-negative integer");
  read_key(j, "vm_type_errors", s.vm_type_errors, "a list of strings");
  read_key(j, "guest_memfd", s.guest_memfd, "true or false");
  read_key(j, "guest_memfd_flags", s.guest_memfd_flag_names, "a list of strings");
  read_key(j, "guest_memfd_flags_mask", s.guest_memfd_flags, "a non-negative integer");
  read_key(j, "memory_attributes", s.memory_attributes, "a non-negative integer");
  read_key(j, "private_memory_vm_types", s.private_memory_vm_types, "a list of strings");
  read_key(j, "pre_fault_memory", s.pre_fault_memory, "true or false");
  read_key(j, "user_memory2", s.user_memory2, "true or false");
  read_key(j, "memory_attributes_by_vm_type", s.memory_attributes_by_vm_type,
           "an object of non-negative integers");
  read_key(j, "gmem_attributes2_vm_types", s.gmem_attributes2_vm_types, "a list of strings");
  read_key(j, "gmem_attributes2_notes", s.gmem_attributes2_notes, "a list of strings");
  read_key(j, "guest_phys_bits", s.guest_phys_bits, "a non-negative integer");
  s.sev_device_error = "the host description does not say whether /dev/sev can be opened";
  read_key(j, "sev_device_error", s.sev_device_error, "a string");
  // The names are the mask's where a description gives only one of them.
  if (s.vm_types_mask == 0)
    for (std::uint32_t t = 0; t < 64; ++t)
      if (std::find(s.vm_types.begin(), s.vm_types.end(), vm_type_name(t)) != s.vm_types.end())
        s.vm_types_mask |= 1ULL << t;
  if (s.vm_types_mask == 0) s.vm_types_mask = 1;
  if (s.vm_types.empty()) s.vm_types = vm_type_names(s.vm_types_mask);
  return s;
}

}  // namespace kvmbench::host
