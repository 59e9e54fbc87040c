#include "hostlib/cpuid.h"

#include <gtest/gtest.h>

#include "hostlib/host_metadata.h"
#include "hostlib/qemu_info.h"

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
