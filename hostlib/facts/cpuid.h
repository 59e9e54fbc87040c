// CPU identity and the features kvmbench cares about, decoded from CPUID
// register values. The decoding is pure (decode_cpu() takes a table of leaf
// values) so it is unit-tested with fixed registers; read_cpu() executes the
// CPUID instruction and adds what only the kernel can tell (microcode
// revision, TDX, features a hypervisor hides from CPUID) from /proc/cpuinfo.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct CpuidRegs {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// Leaf values keyed by (leaf, subleaf). A leaf that is absent is treated as
// "not supported" (all zeros), as the CPU does beyond its maximum leaf.
using CpuidTable = std::map<std::pair<std::uint32_t, std::uint32_t>, CpuidRegs>;

struct CpuInfo {
  std::string vendor;        // "GenuineIntel", "AuthenticAMD", ... (CPUID 0 EBX:EDX:ECX)
  std::string vendor_short;  // "intel", "amd" or "other"
  std::string model_name;    // brand string (0x80000002..4), trimmed
  unsigned family = 0;       // display family (base + extended when base == 0xf)
  unsigned model = 0;        // display model (with extended model for family 6 / 0xf)
  unsigned stepping = 0;
  std::string microcode;     // "0x..." from /proc/cpuinfo, "" when unknown
  bool hypervisor = false;   // CPUID 1 ECX[31]: we run inside a VM
  // CPUID 0x40000000 EBX:ECX:EDX when `hypervisor`: "KVMKVMKVM", "TCGTCGTCGTCG"
  // (QEMU's software emulator), "Microsoft Hv", ... ("" when none).
  std::string hypervisor_signature;
  // What the signature names: "kvm", "tcg", "hyperv", "vmware", "xen", ...,
  // "other" for an unknown one, "" when there is no hypervisor.
  std::string hypervisor_name;
  // Lower-case names from {svm, npt, flushbyasid, sev, sev_es, sev_snp,
  // rmpopt, vmx, tdx}, in that order, only those present.
  std::vector<std::string> features;
  // Where each feature was seen: "cpuid", "cpuinfo" (kernel flags) or "sysfs".
  std::map<std::string, std::string> feature_source;
  std::uint32_t max_leaf = 0, max_ext_leaf = 0;
  // TSC frequency from CPUID 0x15 (crystal * ratio), or 0x16 base MHz; 0 when
  // CPUID does not enumerate it.
  std::uint64_t tsc_hz_cpuid = 0;
  std::string tsc_hz_cpuid_leaf;  // "0x15" or "0x16" or ""

  bool has(std::string_view feature) const;
};

// Pure: the short name of a hypervisor signature (CPUID 0x40000000).
std::string hypervisor_name_of(std::string_view signature);

// Whether this CPU is emulated in software rather than executed by hardware:
// QEMU's TCG ("TCGTCGTCGTCG"). Everything measured on it is `emulated`.
bool cpu_is_emulated(const CpuInfo& cpu);

// All feature names kvmbench reports, in report order.
const std::vector<std::string>& known_cpu_features();

// Pure: decode identity, features and CPUID TSC rate from leaf values.
CpuInfo decode_cpu(const CpuidTable& leaves);

// Pure: merge what the kernel reports (/proc/cpuinfo text of one processor or
// the whole file: its first "flags" and "microcode" lines are used, and
// "tdx_host_platform"/"tdx_guest" style flags) into `cpu`.
void merge_cpuinfo(CpuInfo& cpu, std::string_view proc_cpuinfo);

// Pure: the value of `key` in the first processor block of /proc/cpuinfo.
std::optional<std::string> cpuinfo_field(std::string_view proc_cpuinfo, std::string_view key);

// Executes CPUID for the leaves decode_cpu needs (x86 only; empty elsewhere).
CpuidTable read_cpuid_table();

// read_cpuid_table() + decode + /proc/cpuinfo + TDX module in sysfs.
CpuInfo read_cpu();

nlohmann::json to_json(const CpuInfo& c);

}  // namespace kvmbench::host

namespace kvmbench::host {

// The SEV memory-encryption geometry of CPUID 0x8000001F EBX (AMD APM vol. 3,
// "Encrypted memory capabilities"): bits 5:0 the C-bit position in a page
// table entry, bits 11:6 the physical address bits lost to encryption. QEMU
// compares its sev-snp-guest `cbitpos` with EBX[5:0] of the host and exits
// ("cbitpos check failed") when they differ, so it must come from the host
// (target/i386/sev.c, sev_common_kvm_init, per the research note). Pure;
// nullopt when the CPU is not AMD, lacks the leaf or does not report SEV
// (EAX[1]).
struct SevEncryptionBits {
  unsigned cbitpos = 0;
  unsigned reduced_phys_bits = 0;
};
std::optional<SevEncryptionBits> sev_encryption_bits(const CpuidTable& leaves);

}  // namespace kvmbench::host
