// The SNP and TDX init wrappers (hostlib/kvm/kvm_vm.h, KVM_MEMORY_ENCRYPT_OP).
// This development host has neither SEV-SNP nor TDX, so the wrappers are
// UNTESTED ON HARDWARE; what is tested: the ioctl number and the argument
// encoding (policy bits, CPUID filtering), and that each init ioctl refused
// by the real /dev/kvm (on a default VM, which has no such ioctls) is a
// KvmError that names the sub-command, the VM type and the errno.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "hostlib/kvm/private_vm.h"
#include "tests/support/kvm_usable.h"

using namespace kvmbench::host;
using kvmbench::test_support::kvm_error_of;
using kvmbench::test_support::kvm_usable;

namespace {

uapi::CpuidEntry2 leaf(std::uint32_t function, std::uint32_t index, std::uint32_t value) {
  uapi::CpuidEntry2 e{};
  e.function = function;
  e.index = index;
  e.flags = 1;  // KVM_CPUID_FLAG_SIGNIFCANT_INDEX, kept as it was
  e.eax = e.ebx = e.ecx = e.edx = value;
  return e;
}


}  // namespace

TEST(KvmVmConfidential, MemoryEncryptOpNumberAndSubcommandIds) {
  // _IOWR(KVMIO, 0xba, unsigned long) on x86-64.
  EXPECT_EQ(uapi::kMemoryEncryptOp, 0xc008aebaUL);
  EXPECT_EQ(uapi::kSevInit2, 22u);
  EXPECT_EQ(uapi::kSevSnpLaunchStart, 100u);
  EXPECT_EQ(uapi::kTdxCapabilities, 0u);
  EXPECT_EQ(uapi::kTdxInitVm, 1u);
}

TEST(KvmVmConfidential, SevCommandFieldsSitWhereTheKernelReadsThem) {
  // kvm_sev_cmd is read by the kernel as {u32 id; u32 pad; u64 data; u32
  // error; u32 sev_fd}: write through the struct, read the raw bytes.
  uapi::SevCmd c{};
  c.id = 0x11223344;
  c.data = 0x0102030405060708ULL;
  c.error = 0xaabbccdd;
  c.sev_fd = 7;
  unsigned char raw[sizeof c];
  std::memcpy(raw, &c, sizeof c);
  std::uint32_t id, error, fd;
  std::uint64_t data;
  std::memcpy(&id, raw + 0, 4);
  std::memcpy(&data, raw + 8, 8);
  std::memcpy(&error, raw + 16, 4);
  std::memcpy(&fd, raw + 20, 4);
  EXPECT_EQ(id, 0x11223344u);
  EXPECT_EQ(data, 0x0102030405060708ULL);
  EXPECT_EQ(error, 0xaabbccddu);
  EXPECT_EQ(fd, 7u);
}

TEST(KvmVmConfidential, SnpPolicyBits) {
  // Bit 17 must be one; SMT (bit 16) follows the host; DEBUG (bit 19) only
  // when asked; ABI major/minor (bits 15:0) zero.
  EXPECT_EQ(snp_guest_policy(false), 0x20000u);
  EXPECT_EQ(snp_guest_policy(true), 0x30000u);
  EXPECT_EQ(snp_guest_policy(true, true), 0xb0000u);
  EXPECT_EQ(snp_guest_policy(false, true) & uapi::kSnpPolicySmt, 0u);
  for (bool smt : {false, true})
    for (bool dbg : {false, true}) {
      auto p = snp_guest_policy(smt, dbg);
      EXPECT_TRUE(p & uapi::kSnpPolicyRsvdMbo);
      EXPECT_EQ(p & (uapi::kSnpPolicyAbiMajorMask | uapi::kSnpPolicyAbiMinorMask), 0u);
      EXPECT_EQ(p & (uapi::kSnpPolicyMigrateMa | uapi::kSnpPolicySingleSocket), 0u);
    }
}

TEST(KvmVmConfidential, TdxCpuidKeepsConfigurableLeavesAndMasksThem) {
  std::vector<uapi::CpuidEntry2> supported = {leaf(0x1, 0, 0xffffffff), leaf(0x7, 0, 0xf0f0f0f0),
                                              leaf(0x7, 1, 0xffffffff), leaf(0xd, 0, 0x1)};
  std::vector<uapi::CpuidEntry2> configurable = {leaf(0x7, 0, 0x0000ffff), leaf(0x1, 0, 0x00ff00ff),
                                                 leaf(0x80000008, 0, 0xffffffff)};
  auto out = tdx_guest_cpuid(supported, configurable);
  ASSERT_EQ(out.size(), 2u);  // 0x7/1 and 0xd/0 are not configurable; 0x80000008 not supported
  EXPECT_EQ(out[0].function, 0x1u);  // in KVM's order
  EXPECT_EQ(out[0].eax, 0x00ff00ffu);
  EXPECT_EQ(out[0].edx, 0x00ff00ffu);
  EXPECT_EQ(out[1].function, 0x7u);
  EXPECT_EQ(out[1].index, 0u);
  EXPECT_EQ(out[1].ebx, 0x0000f0f0u);
  EXPECT_EQ(out[1].flags, 1u);
  EXPECT_TRUE(tdx_guest_cpuid(supported, {}).empty());
}

// A TD's GPAW is 48 or 52 (KVM's setup_tdparams_eptp_controls refuses any
// other with EINVAL), read from 0x80000008 EAX[23:16]; KVM reports its own
// GuestPhysBits there (52 only with 5-level TDP, else at most 48, and the
// host's MAXPHYADDR, e.g. 46, where that is smaller).
TEST(KvmVmConfidential, TdxGpawIs48Or52FromKvmsGuestPhysBits) {
  // EAX = 0x2e30_2e: PhysAddrBits 46, LinAddrBits 48, GuestPhysBits 46.
  EXPECT_EQ(guest_phys_bits({leaf(0x80000008, 0, 0x002e302e)}), 46u);
  EXPECT_EQ(guest_phys_bits({leaf(0x80000008, 0, 0x00343034)}), 52u);
  EXPECT_EQ(guest_phys_bits({leaf(0x80000008, 0, 0x00003030)}), 48u);  // EAX[23:16] 0: EAX[7:0]
  EXPECT_EQ(guest_phys_bits({leaf(0x1, 0, 0)}), 0u);
  EXPECT_EQ(tdx_gpaw(46), 48u);
  EXPECT_EQ(tdx_gpaw(48), 48u);
  EXPECT_EQ(tdx_gpaw(52), 52u);
  EXPECT_EQ(tdx_gpaw(0), 48u);
  // Set over what "supported AND configurable" left (46 here), the other
  // bits of EAX kept; added where the CPUID lacks the leaf.
  std::vector<uapi::CpuidEntry2> cpuid = {leaf(0x1, 0, 0), leaf(0x80000008, 0, 0x002e302e)};
  set_tdx_gpaw(cpuid, 48);
  EXPECT_EQ(cpuid[1].eax, 0x0030302eu);
  std::vector<uapi::CpuidEntry2> without = {leaf(0x1, 0, 0)};
  set_tdx_gpaw(without, 52);
  ASSERT_EQ(without.size(), 2u);
  EXPECT_EQ(without[1].function, 0x80000008u);
  EXPECT_EQ(without[1].eax, 0x00340000u);
}

TEST(KvmVmConfidential, SevFirmwareStatusNames) {
  EXPECT_EQ(sev_firmware_status_name(0), "SUCCESS");
  EXPECT_EQ(sev_firmware_status_name(2), "INVALID_GUEST_STATE");
  EXPECT_EQ(sev_firmware_status_name(7), "POLICY_FAILURE");
  EXPECT_EQ(sev_firmware_status_name(0x16), "INVALID_PARAM");
  EXPECT_EQ(sev_firmware_status_name(0x99), "status 153");
}

TEST(KvmVmConfidential, KvmErrorCarriesTheFirmwareDetail) {
  KvmError e("KVM_MEMORY_ENCRYPT_OP", EINVAL, "KVM_SEV_INIT2, vm type=snp, sev_fd=3",
             "SEV firmware status 0x2 (INVALID_GUEST_STATE)");
  EXPECT_EQ(std::string(e.what()),
            "KVM_MEMORY_ENCRYPT_OP(KVM_SEV_INIT2, vm type=snp, sev_fd=3) failed: EINVAL (Invalid argument); "
            "SEV firmware status 0x2 (INVALID_GUEST_STATE)");
  EXPECT_EQ(e.error_number, EINVAL);
  KvmError plain("KVM_RUN", EINTR, "");
  EXPECT_EQ(std::string(plain.what()).find(';'), std::string::npos);
}

// On a default VM there is no KVM_MEMORY_ENCRYPT_OP (or it refuses SEV/TDX
// sub-commands): each step must be a clear KvmError, not a crash or a hang.
TEST(KvmVmConfidential, SnpInitOnADefaultVmIsAClearRefusal) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  std::string m = kvm_error_of([&] { vm.sev_init2(-1); });
  EXPECT_NE(m.find("KVM_MEMORY_ENCRYPT_OP(KVM_SEV_INIT2, vm type=default, sev_fd=-1"), std::string::npos) << m;
  EXPECT_NE(m.find("failed: E"), std::string::npos) << m;  // an errno name follows
  m = kvm_error_of([&] { vm.snp_launch_start(-1, snp_guest_policy(false)); });
  EXPECT_NE(m.find("KVM_SEV_SNP_LAUNCH_START"), std::string::npos) << m;
  EXPECT_NE(m.find("policy=0x20000"), std::string::npos) << m;
  // The composed init stops at its first step and records nothing.
  std::vector<std::string> steps;
  m = kvm_error_of([&] { init_snp_vm(vm, -1, snp_guest_policy(false), steps); });
  EXPECT_NE(m.find("KVM_SEV_INIT2"), std::string::npos) << m;
  EXPECT_TRUE(steps.empty());
}

TEST(KvmVmConfidential, TdxInitOnADefaultVmIsAClearRefusal) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  std::string m = kvm_error_of([&] { vm.tdx_capabilities(); });
  EXPECT_NE(m.find("KVM_MEMORY_ENCRYPT_OP(KVM_TDX_CAPABILITIES, vm type=default"), std::string::npos) << m;
  m = kvm_error_of([&] { vm.tdx_init_vm(0, {leaf(0x1, 0, 0)}); });
  EXPECT_NE(m.find("KVM_TDX_INIT_VM, vm type=default, attributes=0x0, cpuid entries=1"), std::string::npos) << m;
  std::vector<std::string> steps;
  m = kvm_error_of([&] { init_tdx_vm(kvm, vm, 0, steps); });
  EXPECT_NE(m.find("KVM_TDX_CAPABILITIES"), std::string::npos) << m;
  EXPECT_TRUE(steps.empty());
}

// Where the host does not offer a type, creating it says so at
// KVM_CREATE_VM, before any init step.
TEST(KvmVmConfidential, UnofferedTypeFailsAtCreateVm) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  auto offered = static_cast<std::uint64_t>(kvm.check_extension(KVM_CAP_VM_TYPES));
  for (std::uint32_t t : {KVM_X86_SNP_VM, KVM_X86_TDX_VM}) {
    if (offered & (1ULL << t)) continue;  // a lab host: nothing to check here
    std::string m = kvm_error_of([&] { create_private_vm(kvm, t); });
    EXPECT_NE(m.find(fmt::format("KVM_CREATE_VM(type={} {})", t, vm_type_name(t))), std::string::npos) << m;
  }
}

// TDX_INIT_VM needs KVM_GET_SUPPORTED_CPUID. kvm_pvm (this development host)
// refuses it with EINVAL: then the error must name it.
TEST(KvmVmConfidential, SupportedCpuidHasTheBasicLeafOrSaysWhyNot) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  std::vector<uapi::CpuidEntry2> cpuid;
  try {
    cpuid = Kvm::open().supported_cpuid();
  } catch (const KvmError& e) {
    EXPECT_EQ(e.ioctl_name, "KVM_GET_SUPPORTED_CPUID");
    EXPECT_NE(std::string(e.what()).find("KVM_GET_SUPPORTED_CPUID(nent="), std::string::npos) << e.what();
    GTEST_SKIP() << "KVM refuses KVM_GET_SUPPORTED_CPUID here: " << e.what();
  }
  ASSERT_FALSE(cpuid.empty());
  bool leaf0 = false;
  for (const auto& e : cpuid) leaf0 |= e.function == 0 && e.index == 0;
  EXPECT_TRUE(leaf0);
}
