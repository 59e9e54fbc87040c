// Issue 14 item 3: the SEV C-bit position comes from the host's CPUID.
// AMD APM vol. 3, CPUID Fn8000_001F EBX: bits 5:0 C-bit location in page
// table entries, bits 11:6 reduction in physical address space; EAX[1] SEV.
// QEMU (target/i386/sev.c, sev_common_kvm_init, [q-sev] in the research
// note) compares its cbitpos with EBX & 0x3f of the host and exits on a
// difference, so kvmbench reads the same bits.
#include <gtest/gtest.h>

#include "hostlib/facts/cpuid.h"

using namespace kvmbench::host;

namespace {

CpuidTable amd_with_leaf_1f(std::uint32_t eax, std::uint32_t ebx) {
  CpuidTable t;
  // "AuthenticAMD": EBX "Auth", EDX "enti", ECX "cAMD".
  t[{0, 0}] = {0x10, 0x68747541, 0x444d4163, 0x69746e65};
  t[{0x80000000, 0}] = {0x80000025, 0, 0, 0};
  t[{0x8000001F, 0}] = {eax, ebx, 0, 0};
  return t;
}

}  // namespace

TEST(SevEncryptionBits, CbitposAndReducedPhysBitsFromEbx) {
  // EBX = 0x16f: bits 5:0 = 0x2f (47), bits 11:6 = 0x5 (5).
  auto bits = sev_encryption_bits(amd_with_leaf_1f(1u << 1, 0x16f));
  ASSERT_TRUE(bits);
  EXPECT_EQ(bits->cbitpos, 47u);
  EXPECT_EQ(bits->reduced_phys_bits, 5u);
  // Genoa-like: C-bit 51, 1 bit lost (EBX = 0x73 | 1 << 6).
  bits = sev_encryption_bits(amd_with_leaf_1f((1u << 1) | (1u << 4), 0x73));
  ASSERT_TRUE(bits);
  EXPECT_EQ(bits->cbitpos, 51u);
  EXPECT_EQ(bits->reduced_phys_bits, 1u);
}

TEST(SevEncryptionBits, NoneWithoutSevOrOnAnotherVendor) {
  EXPECT_FALSE(sev_encryption_bits(amd_with_leaf_1f(0, 0x73)));  // EAX[1] clear: no SEV
  CpuidTable short_max = amd_with_leaf_1f(1u << 1, 0x73);
  short_max[{0x80000000, 0}] = {0x8000001E, 0, 0, 0};  // leaf 0x1F beyond the maximum
  EXPECT_FALSE(sev_encryption_bits(short_max));
  CpuidTable intel = amd_with_leaf_1f(1u << 1, 0x73);
  intel[{0, 0}] = {0x20, 0x756e6547, 0x6c65746e, 0x49656e69};  // "GenuineIntel"
  EXPECT_FALSE(sev_encryption_bits(intel));
  EXPECT_FALSE(sev_encryption_bits(CpuidTable{}));
}
