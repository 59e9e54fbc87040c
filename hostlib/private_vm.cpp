#include "hostlib/private_vm.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hostlib/kvm_uapi.h"

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

VmTypeChoice choose_private_vm_type(const VmTypeOffer& offer, const std::vector<std::uint32_t>& order,
                                    std::optional<std::uint32_t> forced) {
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
    if (!(offer.private_mask & (1ULL << t))) {
      choice.unavailable.push_back(fmt::format(
          "{}: a {} VM has no private memory (its KVM_CAP_MEMORY_ATTRIBUTES lacks PRIVATE)", name, name));
      continue;
    }
    if (t == KVM_X86_SNP_VM && !offer.sev_device_error.empty()) {
      choice.unavailable.push_back(
          fmt::format("{}: {} (KVM_SEV_INIT2 and KVM_SEV_SNP_LAUNCH_START need it)", name, offer.sev_device_error));
      continue;
    }
    choice.type = static_cast<int>(t);
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
  if (o.offered_mask & (1ULL << KVM_X86_SNP_VM)) o.sev_device_error = sev_device_error();
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
      auto attrs = static_cast<std::uint64_t>(vm.check_extension(KVM_CAP_MEMORY_ATTRIBUTES));
      if (attrs & KVM_MEMORY_ATTRIBUTE_PRIVATE) o.private_mask |= 1ULL << t;
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

void init_tdx_vm(const Kvm& kvm, Vm& vm, std::uint64_t attributes, std::vector<std::string>& steps) {
  TdxCapabilities caps = vm.tdx_capabilities();
  steps.push_back(fmt::format("KVM_TDX_CAPABILITIES(supported_attrs={:#x}, configurable cpuid leaves={})",
                              caps.supported_attrs, caps.configurable_cpuid.size()));
  if (attributes & ~caps.supported_attrs)
    throw std::runtime_error(fmt::format(
        "TD attributes {:#x} are not all supported by the TDX module (KVM_TDX_CAPABILITIES: supported_attrs={:#x})",
        attributes, caps.supported_attrs));
  std::vector<uapi::CpuidEntry2> cpuid = tdx_guest_cpuid(kvm.supported_cpuid(), caps.configurable_cpuid);
  vm.tdx_init_vm(attributes, cpuid);
  steps.push_back(fmt::format("KVM_TDX_INIT_VM(attributes={:#x}, cpuid entries={})", attributes, cpuid.size()));
}

PrivateVm create_private_vm(const Kvm& kvm, std::uint32_t type, const PrivateVmOptions& options) {
  PrivateVm p{Vm::create(kvm, type), UniqueFd(), {}};
  p.init_steps.push_back(fmt::format("KVM_CREATE_VM({})", vm_type_name(type)));
  if (type == KVM_X86_SNP_VM) {
    int fd = ::open(options.sev_device, O_RDWR | O_CLOEXEC);
    if (fd < 0) throw KvmError("open", errno, options.sev_device, "an SNP VM needs the SEV firmware device");
    p.sev_fd = UniqueFd(fd);
    init_snp_vm(p.vm, p.sev_fd.get(), snp_guest_policy(host_smt_active(), options.snp_debug), p.init_steps);
  } else if (type == KVM_X86_TDX_VM) {
    init_tdx_vm(kvm, p.vm, options.tdx_attributes, p.init_steps);
  }
  return p;
}

}  // namespace kvmbench::host
