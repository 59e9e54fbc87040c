// Issue 14 item 1: the end of an SNP / TDX launch, which make_shared now
// does so that KVM may map private memory before the timed conversions
// (KVM_PRE_FAULT_MEMORY is refused before it: arch/x86/kvm/svm/sev.c sets
// pre_fault_allowed in snp_launch_finish, arch/x86/kvm/vmx/tdx.c in
// tdx_td_finalize; research/confidential_paths_review.md section 2).
// Values: KVM_SEV_SNP_LAUNCH_FINISH = 102 (enum sev_cmd_id, [k-uapi], as in
// hostlib/kvm/kvm_uapi.h and the static_assert against the installed header's
// KVM_SEV_SEND_CANCEL); KVM_TDX_INIT_VCPU = 2, KVM_TDX_FINALIZE_VM = 4
// (enum kvm_tdx_cmd_id, [k-uapi]; the note: "TDX ids 0-4"); struct
// kvm_sev_snp_launch_finish's 88-byte layout is NOT in the note (upstream
// uapi as remembered: it is sent all zero, so only its size matters).
// KVM_CAP_SPLIT_IRQCHIP = 121 (linux/kvm.h); TDX needs the split irqchip
// (QEMU docs/system/i386/tdx.rst, [q-tdx]).
// No SNP or TDX here: what is checked is the encoding, the order the plan
// gives, and that each step refused by this host's KVM (a default VM) is a
// KvmError naming it.
#include <gtest/gtest.h>

#include <cstddef>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "hostlib/kvm/private_vm.h"
#include "tests/support/kvm_usable.h"

using namespace kvmbench::host;
using kvmbench::test_support::kvm_error_of;
using kvmbench::test_support::kvm_usable;

namespace {


}  // namespace

TEST(ConfidentialLaunch, FinishCommandIdsAndLayout) {
  EXPECT_EQ(uapi::kSevSnpLaunchFinish, 102u);
  EXPECT_EQ(uapi::kTdxInitVcpu, 2u);
  EXPECT_EQ(uapi::kTdxFinalizeVm, 4u);
  EXPECT_EQ(sizeof(uapi::SevSnpLaunchFinish), 88u);
  EXPECT_EQ(offsetof(uapi::SevSnpLaunchFinish, id_block_en), 16u);
  EXPECT_EQ(offsetof(uapi::SevSnpLaunchFinish, host_data), 19u);
  EXPECT_EQ(offsetof(uapi::SevSnpLaunchFinish, flags), 54u);
  EXPECT_EQ(offsetof(uapi::SevSnpLaunchFinish, pad1), 56u);
  EXPECT_EQ(KVM_CAP_SPLIT_IRQCHIP, 121);
}

// The plan's order is the live order: launch, then the vCPU (TDX inits it),
// then the finish that allows pre-faulting.
TEST(ConfidentialLaunch, PlanOrderPerVmType) {
  auto snp = private_vm_launch_plan(KVM_X86_SNP_VM, 0x30000);
  ASSERT_EQ(snp.size(), 4u);
  EXPECT_EQ(snp[0], "KVM_CREATE_VM(snp)");
  EXPECT_NE(snp[1].find("/dev/sev"), std::string::npos);
  EXPECT_NE(snp[2].find("KVM_SEV_INIT2"), std::string::npos);
  EXPECT_EQ(snp[3], "KVM_MEMORY_ENCRYPT_OP KVM_SEV_SNP_LAUNCH_START(policy=0x30000)");
  EXPECT_TRUE(private_vm_vcpu_plan(KVM_X86_SNP_VM).empty());
  ASSERT_EQ(private_vm_finish_plan(KVM_X86_SNP_VM).size(), 1u);
  EXPECT_NE(private_vm_finish_plan(KVM_X86_SNP_VM)[0].find("KVM_SEV_SNP_LAUNCH_FINISH"), std::string::npos);

  auto tdx = private_vm_launch_plan(KVM_X86_TDX_VM, 0);
  ASSERT_EQ(tdx.size(), 4u);
  EXPECT_EQ(tdx[1], "KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, 24)");
  EXPECT_NE(tdx[2].find("KVM_TDX_CAPABILITIES"), std::string::npos);
  EXPECT_NE(tdx[3].find("KVM_TDX_INIT_VM"), std::string::npos);
  EXPECT_NE(tdx[3].find("GPAW 48"), std::string::npos) << tdx[3];
  EXPECT_NE(private_vm_launch_plan(KVM_X86_TDX_VM, 0, 52)[3].find("GPAW 52"), std::string::npos);
  EXPECT_NE(private_vm_launch_plan(KVM_X86_TDX_VM, 0, 46)[3].find("GPAW 48: KVM's GuestPhysBits is 46"),
            std::string::npos);
  // The vCPU's CPUID is the TD's (KVM_TDX_GET_CPUID: x2APIC fixed 1), not
  // the INIT_VM one, which lacks x2APIC and makes INIT_VCPU fail.
  auto vcpu = private_vm_vcpu_plan(KVM_X86_TDX_VM);
  ASSERT_EQ(vcpu.size(), 3u);
  EXPECT_NE(vcpu[0].find("KVM_TDX_GET_CPUID"), std::string::npos);
  EXPECT_NE(vcpu[1].find("KVM_SET_CPUID2(vcpu 0, that CPUID)"), std::string::npos);
  EXPECT_NE(vcpu[2].find("KVM_TDX_INIT_VCPU"), std::string::npos);
  EXPECT_NE(private_vm_finish_plan(KVM_X86_TDX_VM)[0].find("KVM_TDX_FINALIZE_VM"), std::string::npos);

  EXPECT_EQ(private_vm_launch_plan(KVM_X86_SW_PROTECTED_VM, 0), std::vector<std::string>{"KVM_CREATE_VM(sw_protected)"});
  EXPECT_TRUE(private_vm_finish_plan(KVM_X86_SW_PROTECTED_VM).empty());
}

TEST(ConfidentialLaunch, FinishStepsOnADefaultVmAreClearRefusals) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  std::string m = kvm_error_of([&] { vm.snp_launch_finish(-1); });
  EXPECT_NE(m.find("KVM_MEMORY_ENCRYPT_OP(KVM_SEV_SNP_LAUNCH_FINISH, vm type=default, sev_fd=-1"),
            std::string::npos)
      << m;
  m = kvm_error_of([&] { vm.tdx_finalize_vm(); });
  EXPECT_NE(m.find("KVM_MEMORY_ENCRYPT_OP(KVM_TDX_FINALIZE_VM, vm type=default"), std::string::npos) << m;
  Vcpu vcpu = vm.create_vcpu(kvm);
  m = kvm_error_of([&] { vcpu.tdx_init_vcpu(0); });
  EXPECT_NE(m.find("KVM_MEMORY_ENCRYPT_OP(KVM_TDX_INIT_VCPU, vcpu fd, initial rcx=0x0)"), std::string::npos) << m;
}

// KVM_SET_CPUID2 and the split irqchip are ordinary ioctls: on this host
// they either work or fail with a KvmError that names them.
TEST(ConfidentialLaunch, SetCpuidAndSplitIrqchipWorkOrSayWhy) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  try {
    vm.enable_split_irqchip();
  } catch (const KvmError& e) {
    EXPECT_NE(std::string(e.what()).find("KVM_ENABLE_CAP(KVM_CAP_SPLIT_IRQCHIP, pins=24)"), std::string::npos)
        << e.what();
  }
  Vcpu vcpu = vm.create_vcpu(kvm);
  uapi::CpuidEntry2 leaf0{};
  try {
    vcpu.set_cpuid({leaf0});
  } catch (const KvmError& e) {
    EXPECT_NE(std::string(e.what()).find("KVM_SET_CPUID2(nent=1)"), std::string::npos) << e.what();
  }
}
