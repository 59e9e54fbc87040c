#include "hostlib/facts/cpuid.h"
#include "hostlib/os/kernel_files.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace kvmbench::host {

namespace {

constexpr std::uint32_t kExtBase = 0x80000000u;
constexpr std::uint32_t kHvBase = 0x40000000u;

CpuidRegs leaf(const CpuidTable& t, std::uint32_t l, std::uint32_t sub = 0) {
  auto it = t.find({l, sub});
  return it == t.end() ? CpuidRegs{} : it->second;
}

bool bit(std::uint32_t v, unsigned b) { return (v >> b) & 1u; }

std::string regs_text(std::initializer_list<std::uint32_t> regs) {
  std::string s;
  for (auto r : regs)
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((r >> (8 * i)) & 0xff));
  return s;
}

std::string trim(std::string s) {
  s.erase(std::find(s.begin(), s.end(), '\0'), s.end());
  auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}


void add_feature(CpuInfo& c, const std::string& name, const std::string& source) {
  if (c.feature_source.count(name)) return;
  c.feature_source[name] = source;
}

void order_features(CpuInfo& c) {
  c.features.clear();
  for (auto& f : known_cpu_features())
    if (c.feature_source.count(f)) c.features.push_back(f);
}

}  // namespace

bool CpuInfo::has(std::string_view feature) const {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

std::string hypervisor_name_of(std::string_view sig) {
  // The signatures as the hypervisors publish them (trailing NULs and
  // blanks trimmed); QEMU's TCG one is TCG_CPUID_SIG in target/i386/cpu.c.
  static const std::pair<std::string_view, std::string_view> known[] = {
      {"KVMKVMKVM", "kvm"},        {"TCGTCGTCGTCG", "tcg"},    {"Microsoft Hv", "hyperv"},
      {"VMwareVMware", "vmware"},  {"XenVMMXenVMM", "xen"},    {"VBoxVBoxVBox", "virtualbox"},
      {"bhyve bhyve", "bhyve"},    {"ACRNACRNACRN", "acrn"},   {"QNXQVMBSQG", "qnx"},
  };
  if (sig.empty()) return "other";  // the bit without a leaf
  for (auto& [s, name] : known)
    if (sig == s) return std::string(name);
  return "other";
}

bool cpu_is_emulated(const CpuInfo& cpu) { return cpu.hypervisor_name == "tcg"; }

const std::vector<std::string>& known_cpu_features() {
  static const std::vector<std::string> names = {"svm", "npt", "flushbyasid", "sev", "sev_es",
                                                 "sev_snp", "rmpopt", "vmx", "tdx"};
  return names;
}

CpuInfo decode_cpu(const CpuidTable& t) {
  CpuInfo c;
  auto l0 = leaf(t, 0);
  c.max_leaf = l0.eax;
  c.vendor = trim(regs_text({l0.ebx, l0.edx, l0.ecx}));
  if (c.vendor == "GenuineIntel")
    c.vendor_short = "intel";
  else if (c.vendor == "AuthenticAMD" || c.vendor == "HygonGenuine")
    c.vendor_short = "amd";
  else
    c.vendor_short = "other";

  if (c.max_leaf >= 1) {
    auto l1 = leaf(t, 1);
    unsigned base_family = (l1.eax >> 8) & 0xf;
    unsigned ext_family = (l1.eax >> 20) & 0xff;
    unsigned base_model = (l1.eax >> 4) & 0xf;
    unsigned ext_model = (l1.eax >> 16) & 0xf;
    c.stepping = l1.eax & 0xf;
    c.family = base_family == 0xf ? base_family + ext_family : base_family;
    c.model = (base_family == 0x6 || base_family == 0xf) ? (ext_model << 4) + base_model : base_model;
    c.hypervisor = bit(l1.ecx, 31);
    if (bit(l1.ecx, 5)) add_feature(c, "vmx", "cpuid");
  }

  // TSC: leaf 0x15 gives crystal Hz * numerator / denominator; when the
  // crystal is not enumerated, leaf 0x16 gives the nominal base MHz.
  if (c.max_leaf >= 0x15) {
    auto l15 = leaf(t, 0x15);
    if (l15.eax && l15.ebx && l15.ecx) {
      c.tsc_hz_cpuid = static_cast<std::uint64_t>(l15.ecx) * l15.ebx / l15.eax;
      c.tsc_hz_cpuid_leaf = "0x15";
    }
  }
  if (!c.tsc_hz_cpuid && c.max_leaf >= 0x16) {
    auto l16 = leaf(t, 0x16);
    if (l16.eax & 0xffff) {
      c.tsc_hz_cpuid = static_cast<std::uint64_t>(l16.eax & 0xffff) * 1000000ull;
      c.tsc_hz_cpuid_leaf = "0x16";
    }
  }
  // Hypervisors (KVM, VMware) publish the TSC rate in kHz at 0x40000010.
  if (!c.tsc_hz_cpuid && c.hypervisor && leaf(t, kHvBase).eax >= kHvBase + 0x10) {
    auto hv = leaf(t, kHvBase + 0x10);
    if (hv.eax) {
      c.tsc_hz_cpuid = static_cast<std::uint64_t>(hv.eax) * 1000ull;
      c.tsc_hz_cpuid_leaf = "0x40000010";
    }
  }

  // The hypervisor's signature, in EBX, ECX, EDX order (not the vendor
  // string's EBX, EDX, ECX). QEMU puts "TCGTCGTCGTCG" there under TCG.
  if (c.hypervisor) {
    auto hv = leaf(t, kHvBase);
    c.hypervisor_signature = trim(regs_text({hv.ebx, hv.ecx, hv.edx}));
    c.hypervisor_name = hypervisor_name_of(c.hypervisor_signature);
  }

  c.max_ext_leaf = leaf(t, kExtBase).eax;
  if (c.max_ext_leaf < kExtBase) c.max_ext_leaf = 0;
  if (c.max_ext_leaf >= kExtBase + 4) {
    std::string brand;
    for (std::uint32_t l = kExtBase + 2; l <= kExtBase + 4; ++l) {
      auto r = leaf(t, l);
      brand += regs_text({r.eax, r.ebx, r.ecx, r.edx});
    }
    c.model_name = trim(brand);
  }
  // The AMD leaves mean something else (or return the highest basic leaf,
  // on Intel) when the vendor is not AMD or the leaf is beyond the maximum.
  bool amd = c.vendor_short == "amd";
  bool svm = false;
  if (c.max_ext_leaf >= kExtBase + 1 && bit(leaf(t, kExtBase + 1).ecx, 2)) {
    svm = true;
    add_feature(c, "svm", "cpuid");
  }
  if (amd && svm && c.max_ext_leaf >= kExtBase + 0xA) {
    auto a = leaf(t, kExtBase + 0xA);
    if (bit(a.edx, 0)) add_feature(c, "npt", "cpuid");
    if (bit(a.edx, 6)) add_feature(c, "flushbyasid", "cpuid");
  }
  if (amd && c.max_ext_leaf >= kExtBase + 0x1F) {
    auto s = leaf(t, kExtBase + 0x1F);
    if (bit(s.eax, 1)) add_feature(c, "sev", "cpuid");
    if (bit(s.eax, 3)) add_feature(c, "sev_es", "cpuid");
    if (bit(s.eax, 4)) add_feature(c, "sev_snp", "cpuid");
  }
  if (amd && c.max_ext_leaf >= kExtBase + 0x25) {
    if (bit(leaf(t, kExtBase + 0x25).edx, 0)) add_feature(c, "rmpopt", "cpuid");
  }
  order_features(c);
  return c;
}

std::optional<std::string> cpuinfo_field(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    auto line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty()) {
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.remove_suffix(1);
    if (k != key) continue;
    auto v = line.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
    return std::string(v);
  }
  return std::nullopt;
}

void merge_cpuinfo(CpuInfo& c, std::string_view text) {
  if (auto mc = cpuinfo_field(text, "microcode")) c.microcode = *mc;
  if (c.model_name.empty())
    if (auto mn = cpuinfo_field(text, "model name")) c.model_name = *mn;
  if (c.vendor.empty())
    if (auto v = cpuinfo_field(text, "vendor_id")) c.vendor = *v;
  auto flags = cpuinfo_field(text, "flags");
  if (!flags) return;
  std::set<std::string> have;
  std::istringstream ss(*flags);
  for (std::string f; ss >> f;) have.insert(f);
  // The kernel's names match ours for these; it also knows features a
  // hypervisor or the BIOS configuration hides from the raw leaves.
  for (auto& f : known_cpu_features())
    if (have.count(f)) add_feature(c, f, "cpuinfo");
  // TDX host support is not a CPUID bit: the kernel reports an initialised
  // TDX module as "tdx_host_platform".
  if (have.count("tdx_host_platform")) add_feature(c, "tdx", "cpuinfo");
  order_features(c);
}

CpuidTable read_cpuid_table() {
  CpuidTable t;
#if defined(__x86_64__) || defined(__i386__)
  auto get = [&](std::uint32_t l, std::uint32_t sub = 0) {
    CpuidRegs r;
    __cpuid_count(l, sub, r.eax, r.ebx, r.ecx, r.edx);
    t[{l, sub}] = r;
    return r;
  };
  auto l0 = get(0);
  for (std::uint32_t l = 1; l <= std::min<std::uint32_t>(l0.eax, 0x16); ++l) get(l);
  auto e0 = get(kExtBase);
  if (e0.eax >= kExtBase)
    for (std::uint32_t l = kExtBase + 1; l <= std::min<std::uint32_t>(e0.eax, kExtBase + 0x25); ++l)
      get(l);
  if (bit(t[{1, 0}].ecx, 31)) {
    auto h = get(kHvBase);  // the signature (decode_cpu) and the maximum hypervisor leaf
    if (h.eax >= kHvBase + 0x10 && h.eax < kHvBase + 0x100) get(kHvBase + 0x10);
  }
#endif
  return t;
}

CpuInfo read_cpu() {
  CpuInfo c = decode_cpu(read_cpuid_table());
  merge_cpuinfo(c, read_kernel_file("/proc/cpuinfo").value_or(""));
  // kvm_intel exposes whether it initialised TDX; older kernels have no flag.
  auto tdx = read_kernel_value("/sys/module/kvm_intel/parameters/tdx").value_or("");
  if (tdx == "Y" || tdx == "1") {
    add_feature(c, "tdx", "sysfs");
    order_features(c);
  }
  return c;
}

nlohmann::json to_json(const CpuInfo& c) {
  nlohmann::json j;
  j["vendor"] = c.vendor_short;
  j["vendor_id"] = c.vendor;
  j["model_name"] = c.model_name;
  j["family"] = c.family;
  j["model"] = c.model;
  j["stepping"] = c.stepping;
  j["microcode"] = c.microcode.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.microcode);
  j["hypervisor"] = c.hypervisor;
  j["hypervisor_signature"] = c.hypervisor_signature;
  j["hypervisor_name"] = c.hypervisor_name;
  j["emulated"] = cpu_is_emulated(c);
  j["features"] = c.features;
  j["feature_source"] = c.feature_source;
  j["max_leaf"] = c.max_leaf;
  j["max_ext_leaf"] = c.max_ext_leaf;
  return j;
}

}  // namespace kvmbench::host

namespace kvmbench::host {

std::optional<SevEncryptionBits> sev_encryption_bits(const CpuidTable& t) {
  const CpuInfo c = decode_cpu(t);
  if (c.vendor_short != "amd" || c.max_ext_leaf < kExtBase + 0x1F || !c.has("sev")) return std::nullopt;
  const CpuidRegs s = leaf(t, kExtBase + 0x1F);
  return SevEncryptionBits{s.ebx & 0x3f, (s.ebx >> 6) & 0x3f};
}

}  // namespace kvmbench::host
