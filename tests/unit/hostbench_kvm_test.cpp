// The KVM ioctl wrappers and probe_kvm(). On a host without /dev/kvm the
// probe must still answer (present = false, with a reason); where KVM is
// there, the answers must be consistent with each other and a spinning
// vCPU must come back under its timer.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/kvm/kvm_test_guest.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"
#include "tests/support/kvm_usable.h"

using namespace kvmbench::host;
using kvmbench::test_support::kvm_usable;

TEST(HostbenchKvm, NamesVmTypesAndExits) {
  EXPECT_EQ(vm_type_name(0), "default");
  EXPECT_EQ(vm_type_name(1), "sw_protected");
  EXPECT_EQ(vm_type_name(4), "snp");
  EXPECT_EQ(vm_type_name(5), "tdx");
  EXPECT_EQ(vm_type_name(42), "type42");
  EXPECT_EQ(exit_reason_name(KVM_EXIT_HLT), "KVM_EXIT_HLT");
  EXPECT_EQ(exit_reason_name(KVM_EXIT_IO), "KVM_EXIT_IO");
  EXPECT_EQ(exit_reason_name(999), "exit_reason 999");
  EXPECT_NE(errno_description(EINVAL).find("EINVAL"), std::string::npos);
}

TEST(HostbenchKvm, UapiLayoutsMatchTheKernelAbi) {
  // The numbers a 6.8+ <linux/kvm.h> computes for these ioctls.
  EXPECT_EQ(uapi::kSetUserMemoryRegion2, 0x40a0ae49UL);
  EXPECT_EQ(uapi::kSetMemoryAttributes, 0x4020aed2UL);
  EXPECT_EQ(uapi::kCreateGuestMemfd, 0xc040aed4UL);
  EXPECT_EQ(uapi::kPreFaultMemory, 0xc040aed5UL);
}

TEST(HostbenchKvm, OpenErrorNamesThePathAndErrno) {
  try {
    Kvm::open("/nonexistent/kvm");
    FAIL() << "opening a missing device succeeded";
  } catch (const KvmError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("/nonexistent/kvm"), std::string::npos) << m;
    EXPECT_NE(m.find("ENOENT"), std::string::npos) << m;
    EXPECT_EQ(e.error_number, ENOENT);
  }
}

TEST(HostbenchKvm, FailedIoctlSaysWhichIoctlAndArguments) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  try {
    Vm::create(kvm, 63);  // no such VM type anywhere
    FAIL() << "KVM_CREATE_VM accepted type 63";
  } catch (const KvmError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.ioctl_name, "KVM_CREATE_VM");
    EXPECT_NE(m.find("KVM_CREATE_VM(type=63"), std::string::npos) << m;
    EXPECT_NE(m.find("failed: E"), std::string::npos) << m;
  }
}

TEST(HostbenchKvm, SystemAndVmCheckExtensionAgreeOnBasics) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  EXPECT_EQ(kvm.api_version(), KVM_API_VERSION);
  EXPECT_GT(kvm.vcpu_mmap_size(), sizeof(kvm_run) - 1);
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  EXPECT_GT(kvm.check_extension(KVM_CAP_USER_MEMORY), 0);
  EXPECT_GT(vm.check_extension(KVM_CAP_USER_MEMORY), 0);
}

TEST(HostbenchKvm, GuestMemfdCanBeCreatedMappedAndTouchedWhereOffered) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  auto flags = static_cast<std::uint64_t>(kvm.check_extension(KVM_CAP_GUEST_MEMFD_FLAGS));
  if (kvm.check_extension(KVM_CAP_GUEST_MEMFD) <= 0 || !(flags & GUEST_MEMFD_FLAG_MMAP) ||
      !(flags & GUEST_MEMFD_FLAG_INIT_SHARED))
    GTEST_SKIP() << "no mmap-able guest_memfd here";
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  const std::size_t size = 1 << 20;
  UniqueFd fd = vm.create_guest_memfd(size, GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED);
  ASSERT_TRUE(fd);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  ASSERT_NE(p, MAP_FAILED) << std::strerror(errno);
  static_cast<char*>(p)[size - 1] = 7;
  EXPECT_EQ(static_cast<char*>(p)[size - 1], 7);
  ::munmap(p, size);
  // A slot backed by it (shared memory from the same mapping's fd).
  void* hva = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  ASSERT_NE(hva, MAP_FAILED);
  EXPECT_NO_THROW(vm.set_user_memory_region2(0, KVM_MEM_GUEST_MEMFD, 0x100000, size, hva, fd.get(), 0));
  ::munmap(hva, size);
}

TEST(HostbenchKvm, SpinningVcpuComesBackUnderItsTimer) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
  const std::size_t size = 0x10000;
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  const unsigned char jmp_self[] = {0xeb, 0xfe};  // jmp $
  std::memcpy(static_cast<char*>(mem) + 0x1000, jmp_self, sizeof jmp_self);
  vm.set_user_memory_region(0, 0, 0, size, mem);
  Vcpu vcpu = vm.create_vcpu(kvm, 0);
  kvm_sregs s = vcpu.get_sregs();
  s.cs.base = 0;
  s.cs.selector = 0;
  vcpu.set_sregs(s);
  kvm_regs r{};
  r.rip = 0x1000;
  r.rflags = 2;
  vcpu.set_regs(r);
  auto t0 = std::chrono::steady_clock::now();
  RunOutcome o = vcpu.run_for(std::chrono::milliseconds(50));
  double s_elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(o.timed_out) << "a jmp-to-self guest exited with " << exit_reason_name(o.exit_reason);
  EXPECT_LT(s_elapsed, 10.0) << "run_for(50 ms) did not come back";
  // And it can run again afterwards (no stale kick, immediate_exit cleared).
  o = vcpu.run_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(vcpu.run_state().immediate_exit, 0);
  ::munmap(mem, size);
}

TEST(HostbenchKvmProbe, AnswersConsistentlyAndNeverHangs) {
  auto t0 = std::chrono::steady_clock::now();
  KvmStatus s = probe_kvm(200);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(elapsed, 20.0);
  EXPECT_FALSE(s.reason.empty());
  EXPECT_EQ(s.runs_guests, s.reason == "ok") << s.reason;
  if (!std::filesystem::exists("/dev/kvm")) {
    EXPECT_FALSE(s.present);
    return;
  }
  if (!s.present) {
    EXPECT_FALSE(s.runs_guests);
    return;
  }
  EXPECT_NE(std::find(s.vm_types.begin(), s.vm_types.end(), "default"), s.vm_types.end());
  EXPECT_TRUE(s.vm_types_mask & 1);
  EXPECT_FALSE(s.guest_checks.empty());
  if (s.runs_guests) {
    EXPECT_EQ(s.guest_checks.size(), 3u);
  } else {
    // The last check listed is the one that failed, and the reason says which.
    EXPECT_NE(s.guest_checks.back().find("FAILED"), std::string::npos);
    auto name = s.guest_checks.back().substr(0, s.guest_checks.back().find(':'));
    EXPECT_NE(s.reason.find(name), std::string::npos) << s.reason;
  }
  EXPECT_EQ(s.guest_memfd_flag_names.size(),
            static_cast<std::size_t>(__builtin_popcountll(s.guest_memfd_flags & 3)));
  for (const auto& t : s.private_memory_vm_types)
    EXPECT_NE(std::find(s.vm_types.begin(), s.vm_types.end(), t), s.vm_types.end()) << t;
  nlohmann::json j = to_json(s);
  for (const char* key : {"present", "runs_guests", "reason", "vm_types", "guest_memfd_flags",
                          "memory_attributes", "pre_fault_memory", "module"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST(HostbenchKvmProbe, GuestChecksStopAtTheFirstFailure) {
  if (!kvm_usable()) GTEST_SKIP() << "/dev/kvm cannot be opened here";
  Kvm kvm = Kvm::open();
  std::vector<GuestCheck> checks = run_guest_checks(kvm, 200);
  ASSERT_FALSE(checks.empty());
  for (std::size_t i = 0; i + 1 < checks.size(); ++i) EXPECT_TRUE(checks[i].ok) << checks[i].name;
  for (const auto& c : checks) EXPECT_FALSE(c.detail.empty()) << c.name;
  if (!checks.back().ok) {
    EXPECT_LT(checks.size(), 4u);
  }
}

// The loop guest's rate tells slow from crawling: the emulated lab on a
// loaded machine ran 9,935,893 of its 10 million iterations in the 500 ms
// (and was called unable to run guests); this host's paravirtual kvm_pvm
// gets through 66,939 in them.
TEST(HostbenchKvmProbe, ALoopGuestThatRunsSlowlyGetsMoreTimeOneThatCrawlsDoesNot) {
  EXPECT_TRUE(loop_guest_would_finish(9'935'893, 0.5, 0.5));
  EXPECT_TRUE(loop_guest_would_finish(1'000'000, 0.5, 0.5));   // 2e6/s: all of it in 5 s, the patience
  EXPECT_FALSE(loop_guest_would_finish(990'000, 0.5, 0.5));    // a little slower: not within it
  EXPECT_FALSE(loop_guest_would_finish(66'939, 0.5, 0.5));     // kvm_pvm
  EXPECT_FALSE(loop_guest_would_finish(0, 0.5, 0.5));          // hung
  EXPECT_FALSE(loop_guest_would_finish(9'990'000, 5.0, 0.5));  // its patience spent
  EXPECT_FALSE(loop_guest_would_finish(kGuestLoopIterations, 0.5, 0.5));
}
