// A VM whose memory can be private (guest_memfd), for the make_shared
// conversions: which VM type to use and how it converts (the VM-wide
// KVM_SET_MEMORY_ATTRIBUTES or KVM_SET_MEMORY_ATTRIBUTES2 on the guest_memfd,
// gmem_conversion.h), why each other type is unavailable, and creating it,
// as the KVM selftests do (a software-protected VM needs nothing more; an
// SNP VM needs KVM_SEV_INIT2 and KVM_SEV_SNP_LAUNCH_START, then, after its
// vCPU exists, KVM_SEV_SNP_LAUNCH_FINISH; a TDX VM the split irqchip,
// KVM_TDX_CAPABILITIES and KVM_TDX_INIT_VM, then KVM_TDX_INIT_VCPU and
// KVM_TDX_FINALIZE_VM).
//
// UNTESTED ON HARDWARE: the SNP and TDX paths were written on a host with
// neither (only the default VM type is offered there). What is tested there:
// the selection given injected capabilities, the arguments built for the
// ioctls, and that each init ioctl refused by KVM is a clear KvmError.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hostlib/kvm/gmem_conversion.h"
#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/kvm/kvm_vm.h"

namespace kvmbench::host {

// What the host offers, per VM type: gathered live (probe_vm_type_offer),
// from the probe's KvmStatus (vm_type_offer_from), or written by a test.
struct VmTypeOffer {
  std::uint64_t offered_mask = 1;   // KVM_CAP_VM_TYPES (1 << type); default only without the cap
  std::uint64_t private_mask = 0;   // types whose VM fd reports KVM_MEMORY_ATTRIBUTE_PRIVATE
  std::vector<std::string> create_errors;  // "type: why" for offered types KVM_CREATE_VM refused
  std::string sev_device_error;     // why /dev/sev cannot be opened ("" when it can)
  // How each probed type converts (type -> paths); a type without an entry
  // has only what private_mask says (the VM-wide ioctl) and an unprobed
  // guest_memfd.
  std::map<std::uint32_t, ConversionPaths> conversion_paths;
};

// The conversion paths of `type` in `offer` (see VmTypeOffer::conversion_paths).
ConversionPaths conversion_paths_of(const VmTypeOffer& offer, std::uint32_t type);

// The order in which types are tried when none is forced.
//  host preset:     sw_protected, snp, tdx: the software-protected VM needs no
//                   firmware, so it measures KVM's own conversion cost; the
//                   confidential types follow where they are the only ones.
//  document preset: snp, tdx: the document measures the arch make_shared
//                   callback, which only a confidential VM type has (the
//                   document's runs were TDX; a host has one of the two).
inline const std::vector<std::uint32_t> kHostVmTypeOrder = {KVM_X86_SW_PROTECTED_VM, KVM_X86_SNP_VM, KVM_X86_TDX_VM};
inline const std::vector<std::uint32_t> kDocumentVmTypeOrder = {KVM_X86_SNP_VM, KVM_X86_TDX_VM};

struct VmTypeChoice {
  int type = -1;                          // KVM_CREATE_VM argument, -1: none usable
  ConversionIoctl conversion = ConversionIoctl::none;  // how the chosen type converts
  std::vector<std::string> unavailable;   // "snp: not offered by KVM (...)", one per type passed over
  // "sw_protected" etc., or "" when none.
  std::string name() const;
  // One sentence listing why each type in the order is unavailable.
  std::string reason() const;
};

// Picks the first type of `order` (or only `forced`, which may be any
// type) that KVM offers, that has a conversion ioctl serving `need`
// (choose_conversion_ioctl), and, for SNP, whose /dev/sev is usable. Pure:
// no host access.
VmTypeChoice choose_private_vm_type(const VmTypeOffer& offer, const std::vector<std::uint32_t>& order,
                                    std::optional<std::uint32_t> forced = std::nullopt,
                                    ConversionNeed need = ConversionNeed::any);

// "sw_protected" -> 1, ... (also "sw-protected"); throws std::invalid_argument
// naming the known types for anything else. "" -> nullopt.
std::optional<std::uint32_t> parse_vm_type(const std::string& name);

// From the probe's answers, on this host or another (nothing is opened or
// created: /dev/sev too is the probe's answer).
VmTypeOffer vm_type_offer_from(const KvmStatus& status);

// For `kvmbench probe` and meta.json: each VM type with private memory, in
// the host preset's order (sw_protected, snp, tdx), as {"type", "state"}:
// "usable" or why not, from the probe's answers.
nlohmann::json private_vm_types_json(const KvmStatus& status);
// Live: asks KVM and creates one VM per offered type.
VmTypeOffer probe_vm_type_offer(const Kvm& kvm);
// Why /dev/sev cannot be opened read-write, or "".
std::string sev_device_error(const char* path = "/dev/sev");

// A VM ready for guest_memfd conversions; for SNP it keeps /dev/sev open.
struct PrivateVm {
  Vm vm;
  UniqueFd sev_fd;
  std::vector<std::string> init_steps;  // "KVM_SEV_INIT2", "KVM_SEV_SNP_LAUNCH_START(policy=0x30000)", ...
  std::vector<uapi::CpuidEntry2> tdx_cpuid;  // TDX: the CPUID given to KVM_TDX_INIT_VM (not the vCPUs')
  bool launch_finished = false;         // SNP_LAUNCH_FINISH / TDX_FINALIZE_VM done (or nothing to finish)
};

struct PrivateVmOptions {
  std::uint64_t tdx_attributes = 0;  // TD attributes (0: none, as the selftests' default)
  bool snp_debug = false;            // SNP policy DEBUG bit
  const char* sev_device = "/dev/sev";
};

// KVM_CREATE_VM(type) and, for SNP and TDX, the init ioctls above (a TD
// also gets the split irqchip its vCPUs need). Throws KvmError naming the
// step that failed (UNTESTED ON HARDWARE for SNP/TDX).
PrivateVm create_private_vm(const Kvm& kvm, std::uint32_t type, const PrivateVmOptions& options = {});

// The launch of an SNP or TDX VM ends with a step that encrypts and
// measures the vCPUs' state, after which KVM lets private memory be mapped
// (KVM_PRE_FAULT_MEMORY is refused before: svm/sev.c sets pre_fault_allowed
// in SNP_LAUNCH_FINISH, vmx/tdx.c in TDX_FINALIZE_VM; research note
// section 2). So every vCPU is created first, then:
//   prepare_vcpu_for_launch: TDX: KVM_SET_CPUID2 (the INIT_VM CPUID) and
//     KVM_TDX_INIT_VCPU; SNP and sw_protected: nothing (SNP's VMSA is taken
//     from the vCPU at LAUNCH_FINISH).
//   finish_launch: SNP: KVM_SEV_SNP_LAUNCH_FINISH; TDX: KVM_TDX_FINALIZE_VM;
//     sw_protected: nothing.
// A TD's vCPU gets the TD's CPUID from KVM_TDX_GET_CPUID, then
// KVM_SET_CPUID2, then KVM_TDX_INIT_VCPU, as QEMU (tdx_fetch_cpuid) and the
// TDX selftests (lib/x86/processor.c) do it.
// UNTESTED ON HARDWARE, and UNSURE: that neither finish step needs guest
// memory added first (SNP_LAUNCH_UPDATE / TDX_INIT_MEM_REGION): no guest
// code runs here.
void prepare_vcpu_for_launch(PrivateVm& p, Vcpu& vcpu);
void finish_launch(PrivateVm& p);

// The sequences as words, in the order create_private_vm (launch),
// prepare_vcpu_for_launch (vcpu) and finish_launch (finish) run them, for
// `run --dry-run`.
// `guest_phys_bits`: the host's (KvmStatus::guest_phys_bits; 0 not known),
// from which the TD's GPAW is chosen.
std::vector<std::string> private_vm_launch_plan(std::uint32_t type, std::uint64_t snp_policy,
                                                unsigned guest_phys_bits = 0);
std::vector<std::string> private_vm_vcpu_plan(std::uint32_t type);
std::vector<std::string> private_vm_finish_plan(std::uint32_t type);

// The init steps alone, on a VM already created (exposed so that tests can
// run them against a VM of the wrong type and check the refusal).
void init_snp_vm(Vm& vm, int sev_fd, std::uint64_t policy, std::vector<std::string>& steps);
// Returns the CPUID given to KVM_TDX_INIT_VM (its GPAW set: tdx_gpaw()).
std::vector<uapi::CpuidEntry2> init_tdx_vm(const Kvm& kvm, Vm& vm, std::uint64_t attributes,
                                           std::vector<std::string>& steps);

}  // namespace kvmbench::host
