// What KVM on this host can do, found by asking it (ioctls on /dev/kvm) and
// by trying: a minimal real-mode guest is run under a timer, so a host whose
// KVM cannot run guests is reported with the reason instead of hanging.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct KvmStatus {
  bool present = false;            // /dev/kvm opened and KVM_GET_API_VERSION == 12
  std::string module;              // "kvm_amd", "kvm_intel", "kvm_pvm" or "" (from /sys/module)
  bool runs_guests = false;        // the test guest reached its HLT with the expected OUT
  std::string reason;              // why not (or "ok")
  std::vector<std::string> vm_types;   // KVM_CAP_VM_TYPES names: "default", "sw_protected", "sev", "sev_es", "snp", "tdx"
  bool guest_memfd = false;        // KVM_CAP_GUEST_MEMFD
  std::uint64_t guest_memfd_flags = 0;  // KVM_CAP_GUEST_MEMFD_FLAGS bitmask
  std::vector<std::string> guest_memfd_flag_names;  // "mmap", "init_shared"
  std::uint64_t memory_attributes = 0;  // KVM_CAP_MEMORY_ATTRIBUTES bitmask (1<<3 = private)
  bool pre_fault_memory = false;   // KVM_CAP_PRE_FAULT_MEMORY
  // Added by the probe implementation:
  std::uint64_t vm_types_mask = 0;     // KVM_CAP_VM_TYPES (1 << type); 1 (default only) when absent
  std::vector<std::string> vm_type_errors;  // "type: why" for advertised types KVM_CREATE_VM refused
  std::vector<std::string> private_memory_vm_types;  // types whose VM fd reports KVM_MEMORY_ATTRIBUTE_PRIVATE
  bool user_memory2 = false;       // KVM_CAP_USER_MEMORY2 (KVM_SET_USER_MEMORY_REGION2)
  std::vector<std::string> guest_checks;  // "minimal real-mode: ok", "long-mode loop: FAILED", ...
  // How each offered type converts guest_memfd memory (hostlib/kvm/gmem_conversion.h):
  std::map<std::string, std::uint64_t> memory_attributes_by_vm_type;  // KVM_CAP_MEMORY_ATTRIBUTES on its VM fd
  std::vector<std::string> gmem_attributes2_vm_types;  // its guest_memfd implements KVM_SET_MEMORY_ATTRIBUTES2
  std::vector<std::string> gmem_attributes2_notes;     // "type: why not" for the other offered types
  // KVM_GET_SUPPORTED_CPUID 0x80000008 EAX[23:16]: the widest guest physical
  // address KVM maps (GuestPhysBits: 52 with 5-level TDP, else at most 48;
  // EAX[7:0] where it is 0); 0 when not asked. A TD's width (GPAW) must be
  // 48 or 52, 52 only with 5-level EPT.
  unsigned guest_phys_bits = 0;
  // Why /dev/sev cannot be opened read-write ("" when it can), asked only
  // when KVM offers the snp type (its KVM_SEV_* commands need it).
  std::string sev_device_error;
};

// Never blocks for longer than about `guest_timeout_ms` plus setup.
KvmStatus probe_kvm(int guest_timeout_ms = 500);

nlohmann::json to_json(const KvmStatus& s);
// From the "kvm" object of `kvmbench probe --json` (another host's). Throws
// std::invalid_argument naming the key for a missing "present" or a value of
// the wrong type; keys an older probe lacks keep their defaults.
KvmStatus kvm_status_from_json(const nlohmann::json& j);

}  // namespace kvmbench::host
