#include "hostlib/kvm/private_vm.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hostlib/kvm/kvm_uapi.h"

namespace kvmbench::host {

namespace {

std::vector<std::string> type_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (std::uint32_t t = 0; t < 64; ++t)
    if (mask & (1ULL << t)) names.push_back(vm_type_name(t));
  return names;
}

// The probe's "type: why" for this type, or "".
std::string create_error_for(const VmTypeOffer& offer, const std::string& name) {
  const std::string prefix = name + ": ";
  for (const auto& e : offer.create_errors)
    if (e.starts_with(prefix)) return e.substr(prefix.size());
  return "";
}

}  // namespace

std::string VmTypeChoice::name() const { return type < 0 ? std::string() : vm_type_name(static_cast<std::uint32_t>(type)); }

std::string VmTypeChoice::reason() const {
  if (unavailable.empty()) return "";
  return fmt::format("{}", fmt::join(unavailable, "; "));
}

ConversionPaths conversion_paths_of(const VmTypeOffer& offer, std::uint32_t type) {
  if (auto it = offer.conversion_paths.find(type); it != offer.conversion_paths.end()) return it->second;
  ConversionPaths p;
  if (type < 64 && (offer.private_mask & (1ULL << type))) p.vm_attributes = KVM_MEMORY_ATTRIBUTE_PRIVATE;
  p.gmem_attributes2_detail = "not probed";
  return p;
}

VmTypeChoice choose_private_vm_type(const VmTypeOffer& offer, const std::vector<std::uint32_t>& order,
                                    std::optional<std::uint32_t> forced, ConversionNeed need) {
  const std::uint64_t offered = offer.offered_mask ? offer.offered_mask : 1;
  VmTypeChoice choice;
  const std::vector<std::uint32_t> candidates = forced ? std::vector<std::uint32_t>{*forced} : order;
  for (std::uint32_t t : candidates) {
    const std::string name = vm_type_name(t);
    const bool in_mask = t < 64 && (offered & (1ULL << t));
    if (!in_mask) {
      choice.unavailable.push_back(fmt::format("{}: not offered by KVM (KVM_CAP_VM_TYPES: {})", name,
                                               fmt::join(type_names(offered), ", ")));
      continue;
    }
    if (std::string e = create_error_for(offer, name); !e.empty()) {
      choice.unavailable.push_back(fmt::format("{}: KVM_CREATE_VM refused it: {}", name, e));
      continue;
    }
    const ConversionChoice conversion = choose_conversion_ioctl(conversion_paths_of(offer, t), need, name);
    if (conversion.ioctl == ConversionIoctl::none) {
      choice.unavailable.push_back(fmt::format("{}: {}", name, conversion.reason));
      continue;
    }
    if (t == KVM_X86_SNP_VM && !offer.sev_device_error.empty()) {
      choice.unavailable.push_back(
          fmt::format("{}: {} (KVM_SEV_INIT2 and KVM_SEV_SNP_LAUNCH_START need it)", name, offer.sev_device_error));
      continue;
    }
    choice.type = static_cast<int>(t);
    choice.conversion = conversion.ioctl;
    return choice;
  }
  return choice;
}

nlohmann::json private_vm_types_json(const KvmStatus& status) {
  const VmTypeOffer offer = vm_type_offer_from(status);
  nlohmann::json out = nlohmann::json::array();  // in preference order
  for (std::uint32_t t : kHostVmTypeOrder) {
    const VmTypeChoice c = choose_private_vm_type(offer, {}, t);
    std::string why = c.reason();
    // "snp: not offered ..." -> "not offered ...": the key names the type.
    if (const std::string prefix = vm_type_name(t) + ": "; why.starts_with(prefix)) why = why.substr(prefix.size());
    out.push_back({{"type", vm_type_name(t)}, {"state", c.type >= 0 ? std::string("usable") : why}});
  }
  return out;
}

std::optional<std::uint32_t> parse_vm_type(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::string n = name;
  std::replace(n.begin(), n.end(), '-', '_');
  for (std::uint32_t t = 0; t <= KVM_X86_TDX_VM; ++t)
    if (vm_type_name(t) == n) return t;
  throw std::invalid_argument(fmt::format(
      "unknown VM type '{}' (known: default, sw_protected, sev, sev_es, snp, tdx)", name));
}

std::string sev_device_error(const char* path) {
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return fmt::format("{} cannot be opened: {}", path, errno_description(errno));
  UniqueFd close_it(fd);
  return "";
}

VmTypeOffer vm_type_offer_from(const KvmStatus& status) {
  VmTypeOffer o;
  o.offered_mask = status.vm_types_mask ? status.vm_types_mask : 1;
  // The probe names types with vm_type_name(), "type<N>" for ones kvmbench
  // does not know: match them the same way, never throw.
  for (const auto& name : status.private_memory_vm_types)
    for (std::uint32_t t = 0; t < 64; ++t)
      if (vm_type_name(t) == name) o.private_mask |= 1ULL << t;
  o.create_errors = status.vm_type_errors;
  // A probe that asked each type's guest_memfd (kvm_probe.h) says how each
  // converts; an older one only which types' VM fd takes PRIVATE.
  for (std::uint32_t t = 0; t < 64; ++t) {
    const std::string name = vm_type_name(t);
    const bool gmem2 = std::find(status.gmem_attributes2_vm_types.begin(), status.gmem_attributes2_vm_types.end(),
                                 name) != status.gmem_attributes2_vm_types.end();
    std::string note;
    for (const auto& n : status.gmem_attributes2_notes)
      if (n.starts_with(name + ": ")) note = n.substr(name.size() + 2);
    const auto attrs = status.memory_attributes_by_vm_type.find(name);
    if (!gmem2 && note.empty() && attrs == status.memory_attributes_by_vm_type.end()) continue;
    ConversionPaths p;
    p.vm_attributes = attrs != status.memory_attributes_by_vm_type.end() ? attrs->second
                      : (o.private_mask & (1ULL << t))                   ? KVM_MEMORY_ATTRIBUTE_PRIVATE
                                                                         : 0;
    p.gmem_attributes2 = gmem2;
    p.gmem_attributes2_detail = gmem2 ? "" : (note.empty() ? "not probed" : note);
    o.conversion_paths[t] = p;
  }
  // Asked by the probe, on the host described: nothing is opened here.
  if (o.offered_mask & (1ULL << KVM_X86_SNP_VM)) o.sev_device_error = status.sev_device_error;
  return o;
}

VmTypeOffer probe_vm_type_offer(const Kvm& kvm) {
  VmTypeOffer o;
  o.offered_mask = static_cast<std::uint64_t>(kvm.check_extension(KVM_CAP_VM_TYPES));
  if (o.offered_mask == 0) o.offered_mask = 1;
  for (std::uint32_t t = 0; t < 64; ++t) {
    if (!(o.offered_mask & (1ULL << t))) continue;
    try {
      Vm vm = Vm::create(kvm, t);
      const ConversionPaths p = probe_conversion_paths(vm);
      if (p.vm_attributes & KVM_MEMORY_ATTRIBUTE_PRIVATE) o.private_mask |= 1ULL << t;
      o.conversion_paths[t] = p;
    } catch (const KvmError& e) {
      o.create_errors.push_back(fmt::format("{}: {}", vm_type_name(t), e.what()));
    }
  }
  if (o.offered_mask & (1ULL << KVM_X86_SNP_VM)) o.sev_device_error = sev_device_error();
  return o;
}

void init_snp_vm(Vm& vm, int sev_fd, std::uint64_t policy, std::vector<std::string>& steps) {
  vm.sev_init2(sev_fd);
  steps.push_back("KVM_SEV_INIT2");
  vm.snp_launch_start(sev_fd, policy);
  steps.push_back(fmt::format("KVM_SEV_SNP_LAUNCH_START(policy={:#x})", policy));
}

std::vector<uapi::CpuidEntry2> init_tdx_vm(const Kvm& kvm, Vm& vm, std::uint64_t attributes,
                                           std::vector<std::string>& steps) {
  TdxCapabilities caps = vm.tdx_capabilities();
  steps.push_back(fmt::format("KVM_TDX_CAPABILITIES(supported_attrs={:#x}, configurable cpuid leaves={})",
                              caps.supported_attrs, caps.configurable_cpuid.size()));
  if (attributes & ~caps.supported_attrs)
    throw std::runtime_error(fmt::format(
        "TD attributes {:#x} are not all supported by the TDX module (KVM_TDX_CAPABILITIES: supported_attrs={:#x})",
        attributes, caps.supported_attrs));
  const std::vector<uapi::CpuidEntry2> supported = kvm.supported_cpuid();
  std::vector<uapi::CpuidEntry2> cpuid = tdx_guest_cpuid(supported, caps.configurable_cpuid);
  const unsigned offered = guest_phys_bits(supported);
  const unsigned gpaw = tdx_gpaw(offered);
  set_tdx_gpaw(cpuid, gpaw);
  vm.tdx_init_vm(attributes, cpuid);
  steps.push_back(fmt::format("KVM_TDX_INIT_VM(attributes={:#x}, cpuid entries={}, GPAW {} (KVM's GuestPhysBits {}))",
                              attributes, cpuid.size(), gpaw, offered));
  return cpuid;
}

PrivateVm create_private_vm(const Kvm& kvm, std::uint32_t type, const PrivateVmOptions& options) {
  PrivateVm p{Vm::create(kvm, type), UniqueFd(), {}, {}, false};
  p.init_steps.push_back(fmt::format("KVM_CREATE_VM({})", vm_type_name(type)));
  if (type == KVM_X86_SNP_VM) {
    int fd = ::open(options.sev_device, O_RDWR | O_CLOEXEC);
    if (fd < 0) throw KvmError("open", errno, options.sev_device, "an SNP VM needs the SEV firmware device");
    p.sev_fd = UniqueFd(fd);
    init_snp_vm(p.vm, p.sev_fd.get(), snp_guest_policy(host_smt_active(), options.snp_debug), p.init_steps);
  } else if (type == KVM_X86_TDX_VM) {
    p.vm.enable_split_irqchip();
    p.init_steps.push_back("KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, 24)");
    p.tdx_cpuid = init_tdx_vm(kvm, p.vm, options.tdx_attributes, p.init_steps);
  } else {
    p.launch_finished = true;  // nothing to finish
  }
  return p;
}

void prepare_vcpu_for_launch(PrivateVm& p, Vcpu& vcpu) {
  if (p.vm.type() != KVM_X86_TDX_VM) return;
  // Not the INIT_VM CPUID: that one is "supported AND configurable", which
  // drops x2APIC (fixed 1 in a TD, not configurable), and INIT_VCPU sets
  // the APIC base in x2APIC mode, refusing (EINVAL) a vCPU without it.
  std::vector<uapi::CpuidEntry2> cpuid = vcpu.tdx_get_cpuid();
  p.init_steps.push_back(fmt::format("KVM_TDX_GET_CPUID(vcpu): {} entries", cpuid.size()));
  auto leaf1 = std::find_if(cpuid.begin(), cpuid.end(),
                            [](const uapi::CpuidEntry2& e) { return e.function == 1 && e.index == 0; });
  if (leaf1 != cpuid.end() && !(leaf1->ecx & kCpuidX2apic)) {
    leaf1->ecx |= kCpuidX2apic;
    p.init_steps.push_back("x2APIC (CPUID.1:ECX[21]) was clear in KVM_TDX_GET_CPUID's answer: set");
  }
  vcpu.set_cpuid(cpuid);
  p.init_steps.push_back(fmt::format("KVM_SET_CPUID2(vcpu, {} entries)", cpuid.size()));
  vcpu.tdx_init_vcpu(0);
  p.init_steps.push_back("KVM_TDX_INIT_VCPU(vcpu, rcx=0)");
}

void finish_launch(PrivateVm& p) {
  if (p.launch_finished) return;
  if (p.vm.type() == KVM_X86_SNP_VM) {
    p.vm.snp_launch_finish(p.sev_fd.get());
    p.init_steps.push_back("KVM_SEV_SNP_LAUNCH_FINISH");
  } else if (p.vm.type() == KVM_X86_TDX_VM) {
    p.vm.tdx_finalize_vm();
    p.init_steps.push_back("KVM_TDX_FINALIZE_VM");
  }
  p.launch_finished = true;
}

namespace {

std::string guest_phys_bits_note(unsigned offered) {
  if (offered == 0) return ": 48 unless KVM_GET_SUPPORTED_CPUID's GuestPhysBits says 52 (5-level EPT)";
  if (offered == 52) return ": KVM's GuestPhysBits is 52 (5-level EPT)";
  return fmt::format(": KVM's GuestPhysBits is {}, so 4-level EPT", offered);
}

}  // namespace

std::vector<std::string> private_vm_launch_plan(std::uint32_t type, std::uint64_t snp_policy,
                                                unsigned guest_phys_bits) {
  std::vector<std::string> steps = {fmt::format("KVM_CREATE_VM({})", vm_type_name(type))};
  if (type == KVM_X86_SNP_VM) {
    steps.push_back("open /dev/sev (O_RDWR): the sev_fd of every SEV command");
    steps.push_back("KVM_MEMORY_ENCRYPT_OP KVM_SEV_INIT2 (all-zero kvm_sev_init: KVM's defaults, GHCB v2)");
    steps.push_back(fmt::format("KVM_MEMORY_ENCRYPT_OP KVM_SEV_SNP_LAUNCH_START(policy={:#x})", snp_policy));
  } else if (type == KVM_X86_TDX_VM) {
    steps.push_back("KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, 24)");
    steps.push_back("KVM_MEMORY_ENCRYPT_OP KVM_TDX_CAPABILITIES (nent from 64, doubled on E2BIG)");
    steps.push_back(fmt::format(
        "KVM_MEMORY_ENCRYPT_OP KVM_TDX_INIT_VM(attributes=0, CPUID = supported AND configurable, with 0x80000008 "
        "EAX[23:16] = GPAW {}{}; KVM takes only 48 or 52)",
        tdx_gpaw(guest_phys_bits), guest_phys_bits_note(guest_phys_bits)));
  }
  return steps;
}

std::vector<std::string> private_vm_finish_plan(std::uint32_t type) {
  if (type == KVM_X86_SNP_VM)
    return {"KVM_MEMORY_ENCRYPT_OP KVM_SEV_SNP_LAUNCH_FINISH (no ID block, no host data): the vCPU's VMSA is "
            "encrypted; KVM allows pre-faulting from here on"};
  if (type == KVM_X86_TDX_VM)
    return {"KVM_MEMORY_ENCRYPT_OP KVM_TDX_FINALIZE_VM: KVM allows pre-faulting from here on"};
  return {};
}

std::vector<std::string> private_vm_vcpu_plan(std::uint32_t type) {
  if (type == KVM_X86_TDX_VM)
    return {"KVM_MEMORY_ENCRYPT_OP KVM_TDX_GET_CPUID(vcpu 0): the TD's CPUID as the TDX module fixes it (x2APIC "
            "among the fixed-1 bits; the INIT_VM CPUID, supported AND configurable, lacks it), nent grown on E2BIG",
            "KVM_SET_CPUID2(vcpu 0, that CPUID)", "KVM_MEMORY_ENCRYPT_OP KVM_TDX_INIT_VCPU(vcpu 0, rcx=0)"};
  return {};
}

}  // namespace kvmbench::host
