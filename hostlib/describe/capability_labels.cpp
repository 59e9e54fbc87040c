#include "hostlib/describe/capability_labels.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "hostlib/describe/host_metadata.h"

namespace kvmbench::host {

namespace {

// A member of a nested object, null when any step is missing: a probe of
// an older kvmbench, or of a host without that part, gives no label.
const nlohmann::json& at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json null;
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return null;
    p = &(*p)[k];
  }
  return *p;
}

bool is_true(const nlohmann::json& v) { return v.is_boolean() && v.get<bool>(); }

bool lists(const nlohmann::json& arr, std::string_view item) {
  if (!arr.is_array()) return false;
  return std::any_of(arr.begin(), arr.end(), [&](const nlohmann::json& x) { return x.is_string() && x == item; });
}

// A kvm_amd / kvm_intel parameter as loaded ("Y" / "1").
bool module_param_on(const nlohmann::json& m, const char* module, const char* param) {
  const auto& v = at(m, {"kvm_modules", module, "parameters", param});
  return v.is_string() && (v == "Y" || v == "1");
}

}  // namespace

std::vector<CapabilityLabel> capability_labels(const nlohmann::json& m) {
  std::vector<CapabilityLabel> out;
  auto add = [&](std::string name, std::string value = {}) { out.push_back({std::move(name), std::move(value)}); };
  const auto& kvm = at(m, {"kvm"});
  const auto& features = at(m, {"cpu", "features"});
  const auto& vm_types = at(kvm, {"vm_types"});

  // /dev/kvm answered KVM_GET_API_VERSION and created a VM; the value is the
  // vendor module it runs on.
  if (is_true(at(kvm, {"present"}))) {
    const auto& mod = at(kvm, {"module"});
    add("kvm", mod.is_string() ? mod.get<std::string>() : "");
  }
  // A test guest ran to its end (not: the module loaded).
  if (is_true(at(kvm, {"runs_guests"}))) add("kvm-runs-guests");
  // CPUID, as the probe read it.
  if (lists(features, "svm")) add("svm");
  if (lists(features, "vmx")) add("vmx");
  // Nested paging as KVM uses it: the module parameter as loaded (npt=0
  // turns it off on a CPU that has it).
  if (lists(features, "npt") && module_param_on(m, "kvm_amd", "npt")) add("npt");
  if (module_param_on(m, "kvm_intel", "ept")) add("ept");
  // /proc/cpuinfo, not CPUID: clearcpuid=flushbyasid hides it from KVM.
  if (at(m, {"confidential", "flushbyasid"}) == "yes") add("flushbyasid");
  // KVM_CAP_VM_TYPES: the VM types KVM accepts (firmware up, module
  // parameters on), not the CPUID bits. The value is the firmware's version
  // where the kernel reported it (confidential_firmware.h), so that a job
  // can require one: sev-snp=1.55.21, tdx=1.5.06.
  const auto& fw = at(m, {"firmware"});
  auto version = [&](const char* key) {
    const auto& v = at(fw, {key});
    return v.is_string() ? v.get<std::string>() : std::string();
  };
  if (lists(vm_types, "sev")) add("sev", version("sev"));
  if (lists(vm_types, "sev_es")) add("sev-es", version("sev"));
  if (lists(vm_types, "snp")) add("sev-snp", version("sev_snp"));
  // The kernel enabled the RMP optimizations at boot (its log said so).
  if (lists(features, "rmpopt") && at(m, {"confidential", "rmpopt_boot", "state"}) == "enabled") add("rmpopt");
  if (lists(vm_types, "tdx")) add("tdx", version("tdx_module"));
  // KVM_CREATE_GUEST_MEMFD worked, and with GUEST_MEMFD_FLAG_MMAP.
  if (is_true(at(kvm, {"guest_memfd"}))) add("guest-memfd");
  if (lists(at(kvm, {"guest_memfd_flags"}), "mmap")) add("gmem-mmap");
  // Pools the kernel has (sysfs hugepages-<size>kB); the value is how many
  // pages the pool holds (nr_hugepages, 0 when none is reserved): a setting,
  // where the free count changes with every job that maps some.
  const auto& pools = at(m, {"hugepages"});
  for (const auto& [kb, name] : {std::pair{2048UL, "hugetlb-2m"}, std::pair{1048576UL, "hugetlb-1g"}})
    if (pools.is_array())
      for (const auto& p : pools)
        if (p.is_object() && p.value("page_kb", 0UL) == kb) {
          const auto& pages = at(p, {"nr_hugepages"});
          add(name, pages.is_number() ? fmt::format("{}", pages.get<long long>()) : "");
        }
  if (const auto& nodes = at(m, {"numa", "nodes"}); nodes.is_array() && !nodes.empty())
    add(fmt::format("numa-{}", nodes.size()));
  // Where results measured here are not hardware figures.
  if (!emulation_reason(m).empty()) add("emulated");
  if (is_true(at(m, {"virtualization", "kvm_nested"}))) {
    const auto& h = at(m, {"virtualization", "hypervisor"});
    add("nested", h.is_string() ? h.get<std::string>() : "");
  }
  return out;
}

std::string to_string(const CapabilityLabel& l) { return l.value.empty() ? l.name : l.name + "=" + l.value; }

static bool is_count(const std::string& v) {
  return !v.empty() && v.size() < 19 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::vector<std::string> missing_labels(const std::vector<CapabilityLabel>& have,
                                        const std::vector<std::string>& required) {
  std::vector<std::string> missing;
  for (const auto& r : required) {
    const auto eq = r.find('=');
    const std::string name = r.substr(0, eq);
    const std::string want = eq == std::string::npos ? "" : r.substr(eq + 1);
    const bool met = std::any_of(have.begin(), have.end(), [&](const CapabilityLabel& l) {
      if (l.name != name) return false;
      if (eq == std::string::npos || l.value == want) return true;
      // A version names itself and the more precise ones under it:
      // sev-snp=1.55 is met by 1.55.21, not by 1.56 or 1.550.
      if (l.value.size() > want.size() && l.value.compare(0, want.size(), want) == 0 &&
          l.value[want.size()] == '.')
        return true;
      // A count (hugetlb-1g=4) is a floor: a job that needs 4 pages runs on 8.
      return is_count(want) && is_count(l.value) && std::stoull(l.value) >= std::stoull(want);
    });
    if (!met) missing.push_back(r);
  }
  return missing;
}

}  // namespace kvmbench::host
