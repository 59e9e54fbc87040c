#include "hostlib/facts/cpuid.h"

#include <gtest/gtest.h>

#include "hostlib/describe/host_metadata.h"
#include "hostlib/qemu/qemu_info.h"

using namespace kvmbench::host;

namespace {

// Vendor string in EBX, EDX, ECX order.
CpuidRegs vendor_leaf(std::uint32_t max, const char v[13]) {
  auto word = [&](int i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(v[i])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(v[i + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(v[i + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(v[i + 3])) << 24;
  };
  return {max, word(0), word(8), word(4)};
}

}  // namespace

TEST(Cpuid, DecodesAnSnpCapableAmdCpu) {
  CpuidTable t;
  t[{0, 0}] = vendor_leaf(0x10, "AuthenticAMD");
  // Family 0x19 (0xf + 0xa), model 0x11 (ext 1, base 1), stepping 1: EPYC Genoa.
  t[{1, 0}] = {0x00A10F11, 0, 0, 0};
  t[{0x80000000, 0}] = {0x80000025, 0, 0, 0};
  t[{0x80000001, 0}] = {0, 0, 1u << 2, 0};             // SVM
  t[{0x8000000A, 0}] = {0, 0, 0, (1u << 0) | (1u << 6)};  // NPT, FLUSHBYASID
  t[{0x8000001F, 0}] = {(1u << 1) | (1u << 3) | (1u << 4), 0, 0, 0};  // SEV, SEV-ES, SNP
  t[{0x80000025, 0}] = {0, 0, 0, 1u};                  // RMPOPT
  auto c = decode_cpu(t);
  EXPECT_EQ(c.vendor, "AuthenticAMD");
  EXPECT_EQ(c.vendor_short, "amd");
  EXPECT_EQ(c.family, 0x19u);
  EXPECT_EQ(c.model, 0x11u);
  EXPECT_EQ(c.stepping, 1u);
  EXPECT_EQ(c.features, (std::vector<std::string>{"svm", "npt", "flushbyasid", "sev", "sev_es", "sev_snp", "rmpopt"}));
  EXPECT_EQ(c.feature_source.at("rmpopt"), "cpuid");
}

TEST(Cpuid, OldAmdWithoutFlushByAsidOrRmpopt) {
  CpuidTable t;
  t[{0, 0}] = vendor_leaf(0xd, "AuthenticAMD");
  t[{1, 0}] = {0x00800F12, 0, 0, 0};  // family 0x17
  t[{0x80000000, 0}] = {0x8000001F, 0, 0, 0};
  t[{0x80000001, 0}] = {0, 0, 1u << 2, 0};
  t[{0x8000000A, 0}] = {0, 0, 0, 1u};  // NPT only
  t[{0x8000001F, 0}] = {1u << 1, 0, 0, 0};
  // A stale 0x80000025 value beyond the maximum leaf must be ignored.
  t[{0x80000025, 0}] = {0, 0, 0, 1u};
  auto c = decode_cpu(t);
  EXPECT_EQ(c.family, 0x17u);
  EXPECT_EQ(c.features, (std::vector<std::string>{"svm", "npt", "sev"}));
  EXPECT_FALSE(c.has("rmpopt"));
  EXPECT_FALSE(c.has("flushbyasid"));
}

TEST(Cpuid, IntelGuestWithTscLeaves) {
  CpuidTable t;
  t[{0, 0}] = vendor_leaf(0x20, "GenuineIntel");
  // Family 6 model 0xA7 (ext 0xA, base 7) stepping 8; ECX[31] hypervisor, ECX[5] VMX.
  t[{1, 0}] = {0x000A0678, 0, (1u << 31) | (1u << 5), 0};
  t[{0x15, 0}] = {2, 166, 25000000, 0};  // 25 MHz crystal * 166/2 = 2.075 GHz
  t[{0x16, 0}] = {2000, 0, 0, 0};
  // Intel returns the highest basic leaf for an out-of-range extended leaf:
  // none of the AMD bits may be read from it.
  t[{0x80000000, 0}] = {0x80000008, 0, 0, 0};
  t[{0x8000001F, 0}] = {0xffffffff, 0, 0, 0xffffffff};
  auto c = decode_cpu(t);
  EXPECT_EQ(c.vendor_short, "intel");
  EXPECT_EQ(c.family, 6u);
  EXPECT_EQ(c.model, 0xA7u);
  EXPECT_EQ(c.stepping, 8u);
  EXPECT_TRUE(c.hypervisor);
  EXPECT_EQ(c.features, std::vector<std::string>{"vmx"});
  EXPECT_EQ(c.tsc_hz_cpuid, 2075000000u);
  EXPECT_EQ(c.tsc_hz_cpuid_leaf, "0x15");
  t[{0x15, 0}] = {2, 166, 0, 0};  // crystal not enumerated: fall back to 0x16
  auto d = decode_cpu(t);
  EXPECT_EQ(d.tsc_hz_cpuid, 2000000000u);
  EXPECT_EQ(d.tsc_hz_cpuid_leaf, "0x16");
}

// Hypervisor signature: CPUID 0x40000000 EBX, ECX, EDX (in that order, not
// the vendor string's EBX, EDX, ECX). QEMU's TCG_CPUID_SIG is
// "TCGTCGTCGTCG"; KVM's KVM_SIGNATURE is "KVMKVMKVM\0\0\0".
TEST(Cpuid, HypervisorSignatureNamesTcgAndKvm) {
  auto hv_leaf = [](const char sig[13]) {
    auto w = [&](int i) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(sig[i])) |
             static_cast<std::uint32_t>(static_cast<unsigned char>(sig[i + 1])) << 8 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(sig[i + 2])) << 16 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(sig[i + 3])) << 24;
    };
    return CpuidRegs{0x40000001, w(0), w(4), w(8)};
  };
  CpuidTable t;
  t[{0, 0}] = vendor_leaf(1, "AuthenticAMD");
  t[{1, 0}] = {0x00000F6B, 0, 1u << 31, 0};  // the hypervisor bit
  t[{0x40000000, 0}] = hv_leaf("TCGTCGTCGTCG");
  auto tcg = decode_cpu(t);
  EXPECT_EQ(tcg.hypervisor_signature, "TCGTCGTCGTCG");
  EXPECT_EQ(tcg.hypervisor_name, "tcg");
  EXPECT_TRUE(cpu_is_emulated(tcg));
  t[{0x40000000, 0}] = hv_leaf("KVMKVMKVM\0\0\0");
  auto kvm = decode_cpu(t);
  EXPECT_EQ(kvm.hypervisor_signature, "KVMKVMKVM");
  EXPECT_EQ(kvm.hypervisor_name, "kvm");
  EXPECT_FALSE(cpu_is_emulated(kvm));
  // EBX:EDX:ECX order would read "TCGTTCGTCGCG" for TCG's leaf; a stale leaf
  // without the hypervisor bit is not read at all.
  t[{0x40000000, 0}] = hv_leaf("TCGTCGTCGTCG");
  t[{1, 0}] = {0x00000F6B, 0, 0, 0};
  auto bare = decode_cpu(t);
  EXPECT_EQ(bare.hypervisor_signature, "");
  EXPECT_EQ(bare.hypervisor_name, "");
  EXPECT_FALSE(cpu_is_emulated(bare));
  EXPECT_EQ(hypervisor_name_of("Microsoft Hv"), "hyperv");
  EXPECT_EQ(hypervisor_name_of("SomethingNew"), "other");
}

TEST(HostMetadata, VirtualizationAndEmulationReason) {
  nlohmann::json tcg = {{"hypervisor", true}, {"hypervisor_name", "tcg"}, {"hypervisor_signature", "TCGTCGTCGTCG"}};
  auto v = virtualization_json(tcg, true);
  EXPECT_EQ(v["emulated"], true);
  EXPECT_EQ(v["kvm_nested"], true);
  EXPECT_EQ(v["hypervisor"], "tcg");
  nlohmann::json meta = {{"cpu", tcg}};
  EXPECT_NE(emulation_reason(meta).find("TCGTCGTCGTCG"), std::string::npos);
  // KVM in a KVM guest (a cloud VM with nested virtualization): hardware
  // runs it, but nested, and meta.json says so.
  nlohmann::json cloud = {{"hypervisor", true}, {"hypervisor_name", "kvm"}, {"hypervisor_signature", "KVMKVMKVM"}};
  auto n = virtualization_json(cloud, true);
  EXPECT_EQ(n["emulated"], false);
  EXPECT_EQ(n["kvm_nested"], true);
  EXPECT_NE(n["note"].get<std::string>().find("nested in kvm"), std::string::npos);
  EXPECT_EQ(emulation_reason({{"cpu", cloud}}), "");
  // Bare metal: no hypervisor, nothing nested, nothing emulated.
  auto bare = virtualization_json({{"hypervisor", false}}, true);
  EXPECT_EQ(bare["kvm_nested"], false);
  EXPECT_TRUE(bare["hypervisor"].is_null());
  EXPECT_EQ(emulation_reason(nlohmann::json::object()), "");
}

TEST(Cpuid, MergesKernelFlagsAndMicrocode) {
  CpuidTable t;
  t[{0, 0}] = vendor_leaf(1, "GenuineIntel");
  auto c = decode_cpu(t);
  merge_cpuinfo(c,
                "processor\t: 0\n"
                "vendor_id\t: GenuineIntel\n"
                "model name\t: Intel(R) Xeon(R) Processor\n"
                "microcode\t: 0x2b000161\n"
                "flags\t\t: fpu vme vmx tdx_host_platform sse\n"
                "\n"
                "processor\t: 1\n"
                "microcode\t: 0xdead\n");
  EXPECT_EQ(c.microcode, "0x2b000161");
  EXPECT_EQ(c.model_name, "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(c.features, (std::vector<std::string>{"vmx", "tdx"}));
  EXPECT_EQ(c.feature_source.at("tdx"), "cpuinfo");
  EXPECT_EQ(cpuinfo_field("a : 1\nb: 2\n", "b"), "2");
  EXPECT_FALSE(cpuinfo_field("a : 1\n", "c"));
}

TEST(Cpuid, ReadsThisCpu) {
  auto c = read_cpu();
#if defined(__x86_64__)
  EXPECT_FALSE(c.vendor.empty());
  EXPECT_GT(c.family, 0u);
#endif
  for (auto& f : c.features) EXPECT_TRUE(c.feature_source.count(f)) << f;
}

TEST(QemuInfo, ParsesVersionAndAccelerators) {
  EXPECT_EQ(parse_qemu_version("QEMU emulator version 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1)\nCopyright"), "8.2.2");
  EXPECT_EQ(parse_qemu_version("garbage"), "");
  EXPECT_EQ(parse_qemu_accels("Accelerators supported in QEMU binary:\ntcg\nkvm\n"),
            (std::vector<std::string>{"tcg", "kvm"}));
  EXPECT_TRUE(parse_qemu_accels("qemu: unknown option").empty());
}

TEST(HostMetadata, PureHelpers) {
  EXPECT_EQ(hugepage_dir_kb("hugepages-2048kB"), 2048u);
  EXPECT_EQ(hugepage_dir_kb("hugepages-1048576kB"), 1048576u);
  EXPECT_EQ(hugepage_dir_kb("hugepages-kB"), 0u);
  EXPECT_EQ(hugepage_dir_kb("hugepages-20x8kB"), 0u);
  EXPECT_EQ(hugepage_dir_kb("nr_hugepages"), 0u);
  EXPECT_EQ(selected_mode("always [madvise] never\n"), "madvise");
  EXPECT_EQ(selected_mode("performance\n"), "performance");
}

TEST(HostMetadata, CollectsWithoutKvmOrQemu) {
  kvmbench::host::MetadataOptions o;
  o.probe_kvm = false;
  o.probe_qemu = false;
  o.tsc_calibration_ms = 10;
  auto m = collect_metadata(o);
  EXPECT_TRUE(m["memory"]["total_bytes"].is_number());
  EXPECT_TRUE(m["memory"]["directmap"].is_object());
  EXPECT_TRUE(m["numa"]["nodes"].is_array());
  EXPECT_FALSE(m["kernel"]["release"].get<std::string>().empty());
  EXPECT_GT(m["topology"]["threads"].get<int>(), 0);
  EXPECT_TRUE(m["unreadable"].is_array());
}
