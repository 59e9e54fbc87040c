// make_shared host benchmarks at tiny sizes: guest_memfd operations and
// conversions either produce samples with the right units or a skip that
// says why (this development host has no private-memory VM type).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "suites/make_shared/measure.h"
#include "tests/support/kvm_usable.h"

using namespace kvmbench;
using namespace kvmbench::host;
using namespace kvmbench::suites::make_shared;

TEST(HostbenchMakeShared, SamplesOrReasonsForEverySize) {
  MakeSharedHostParams p;
  p.sizes = {4096, 2 << 20};
  p.conversions_per_build = 2;
  std::vector<Sample> got;
  BenchOutcome o = measure(p, [&](const Sample& s) { got.push_back(s); });
  const std::map<std::string, std::string> units = {
      {"gmem_create_time", "ns"},   {"gmem_fallocate_time", "ns"}, {"gmem_fallocate_rate", "GB/s"},
      {"gmem_punch_hole_time", "ns"}, {"to_shared_cycles", "cycles"}, {"to_shared_time", "ns"},
      {"to_private_cycles", "cycles"}, {"to_private_time", "ns"}};
  std::set<std::string> gmem_cases, conversion_cases;
  for (const Sample& s : got) {
    ASSERT_TRUE(units.count(s.metric)) << s.metric;
    EXPECT_EQ(s.unit, units.at(s.metric));
    EXPECT_TRUE(std::isfinite(s.value) && s.value > 0) << s.metric << " " << s.value;
    EXPECT_TRUE(s.case_name == "nr_pages=1" || s.case_name == "nr_pages=512") << s.case_name;
    (s.variant == "guest_memfd" ? gmem_cases : conversion_cases).insert(s.case_name);
    if (s.metric.rfind("to_", 0) == 0) {
      // One VM build: its 2 conversions are keys inside the repetition.
      EXPECT_EQ(s.iteration, 0);
      ASSERT_TRUE(s.extra.contains("conversion"));
      EXPECT_LT(s.extra["conversion"].get<int>(), 2);
    }
  }
  std::set<std::string> gmem_skipped, conversion_skipped;
  for (const SkippedCase& s : o.skipped) {
    EXPECT_FALSE(s.reason.empty());
    (s.variant == "guest_memfd" ? gmem_skipped : conversion_skipped).insert(s.case_name);
  }
  EXPECT_EQ(gmem_cases.size() + gmem_skipped.size(), 2u);
  EXPECT_EQ(conversion_cases.size() + conversion_skipped.size(), 2u);
}

TEST(HostbenchMakeShared, NoPrivateMemoryIsExplained) {
  try {
    Kvm::open();
  } catch (const KvmError&) {
    GTEST_SKIP() << "/dev/kvm cannot be opened here";
  }
  const VmTypeChoice choice = make_shared_vm_choice("", kHostVmTypeOrder);
  const std::string why = no_vm_type_reason(choice, "", kHostVmTypeOrder);
  if (choice.type >= 0) {
    EXPECT_NE(choice.conversion, ConversionIoctl::none);
  } else {
    // Each type of the host order, with its reason.
    EXPECT_NE(why.find("(tried sw_protected, snp, tdx)"), std::string::npos) << why;
    EXPECT_NE(why.find("sw_protected: "), std::string::npos) << why;
  }
}

TEST(HostbenchMakeShared, BadParametersAreRejected) {
  MakeSharedHostParams p;
  p.sizes = {4095};
  EXPECT_THROW(measure(p, [](const Sample&) {}), std::invalid_argument);
  p.sizes = {4096};
  p.conversions_per_build = 0;
  EXPECT_THROW(measure(p, [](const Sample&) {}), std::invalid_argument);
  EXPECT_THROW(make_shared_vm_choice("bogus", kHostVmTypeOrder), std::invalid_argument);
}

// Pre-faulting (the document's "fault them in") needs KVM_PRE_FAULT_MEMORY:
// either this VM offers it, or the reason names the capability; a refused
// KVM_PRE_FAULT_MEMORY is a KvmError naming it, never a crash.
TEST(HostbenchMakeShared, PreFaultIsOfferedOrExplained) {
  try {
    Kvm::open();
  } catch (const KvmError&) {
    GTEST_SKIP() << "/dev/kvm cannot be opened here";
  }
  Kvm kvm = Kvm::open();
  PrivateVm pvm = create_private_vm(kvm, KVM_X86_DEFAULT_VM);
  EXPECT_TRUE(pvm.launch_finished);  // nothing to finish on a non-confidential VM
  Vm& vm = pvm.vm;
  const std::string why = prefault_refusal(pvm);
  if (vm.check_extension(KVM_CAP_PRE_FAULT_MEMORY) > 0) {
    EXPECT_EQ(why, "");
    return;
  }
  EXPECT_EQ(why, "KVM_CAP_PRE_FAULT_MEMORY is 0 on this VM");
  // Where KVM lacks it, the ioctl itself is refused with a clear error.
  Vcpu vcpu = vm.create_vcpu(kvm);
  try {
    vcpu.pre_fault_memory(1ULL << 32, 4096);
    ADD_FAILURE() << "KVM_PRE_FAULT_MEMORY succeeded without KVM_CAP_PRE_FAULT_MEMORY";
  } catch (const KvmError& e) {
    EXPECT_EQ(e.ioctl_name, "KVM_PRE_FAULT_MEMORY");
    EXPECT_NE(std::string(e.what()).find("gpa=0x100000000, size=0x1000"), std::string::npos) << e.what();
  }
}

// An SNP or TDX VM refuses KVM_PRE_FAULT_MEMORY until its launch is
// finished (svm/sev.c sets pre_fault_allowed in SNP_LAUNCH_FINISH, vmx/tdx.c
// in TDX_FINALIZE_VM; research note section 2): the refusal says so, and
// the state recorded beside the samples says what pre-faulting leaves.
TEST(HostbenchMakeShared, PreFaultWaitsForTheEndOfTheLaunch) {
  if (!kvmbench::test_support::kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  PrivateVm pvm = create_private_vm(kvm, KVM_X86_DEFAULT_VM);
  pvm.launch_finished = false;  // as an SNP/TDX VM before finish_launch
  EXPECT_EQ(prefault_refusal(pvm), "KVM_PRE_FAULT_MEMORY is refused on a default VM before its launch is finished");
  EXPECT_NE(prefaulted_state(KVM_X86_SNP_VM).find("RMP-assigned"), std::string::npos);
  EXPECT_NE(prefaulted_state(KVM_X86_SNP_VM).find("not PVALIDATEd by a guest"), std::string::npos);
  EXPECT_NE(prefaulted_state(KVM_X86_TDX_VM).find("not accepted by a guest"), std::string::npos);
  // finish_launch of a non-confidential VM issues nothing.
  pvm.launch_finished = false;
  finish_launch(pvm);
  EXPECT_TRUE(pvm.launch_finished);
  EXPECT_EQ(pvm.init_steps, std::vector<std::string>{"KVM_CREATE_VM(default)"});
}
