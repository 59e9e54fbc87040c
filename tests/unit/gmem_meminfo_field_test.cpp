// Issue 14 item 4: directmap confidential=snp follows the meminfo field
// that grows with guest_memfd on the running kernel. Upstream guest_memfd
// allocates order-0 folios (virt/kvm/guest_memfd.c kvm_gmem_get_folio:
// "TODO: Support huge pages", filemap_grab_folio; research note [gmem-up]),
// so FileHugePages, the document's field, stays flat there; it is still
// chosen first where it grows (huge-page guest_memfd).
#include <gtest/gtest.h>

#include "hostlib/facts/gmem_meminfo_field.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/kvm_vm.h"

using namespace kvmbench;
using namespace kvmbench::host;

namespace {
constexpr std::uint64_t MiB = 1ULL << 20;
}

TEST(GmemMeminfoField, OrderZeroGuestMemfdIsNotFileHugePages) {
  Meminfo before = {{"FileHugePages", 0}, {"Unevictable", 10 * MiB}, {"Shmem", 50 * MiB}, {"Cached", 900 * MiB}};
  Meminfo after = before;
  after["Unevictable"] += 256 * MiB;
  after["Cached"] += 256 * MiB;
  auto g = choose_growing_field(before, after, 256 * MiB);
  EXPECT_EQ(g.field, "Unevictable");
  EXPECT_EQ(g.reason, "");
  EXPECT_NE(g.how.find("FileHugePages +0,"), std::string::npos) << g.how;
  EXPECT_NE(g.how.find("Unevictable +256M"), std::string::npos) << g.how;
}

TEST(GmemMeminfoField, HugePageGuestMemfdKeepsTheDocumentsField) {
  Meminfo before = {{"FileHugePages", 0}, {"Unevictable", 0}, {"Cached", 0}};
  Meminfo after = {{"FileHugePages", 256 * MiB}, {"Unevictable", 256 * MiB}, {"Cached", 256 * MiB}};
  EXPECT_EQ(choose_growing_field(before, after, 256 * MiB).field, "FileHugePages");
}

TEST(GmemMeminfoField, AFieldMovedByOtherActivityIsNotTaken) {
  // Cached rose by 4x the allocation (someone else read files): not it.
  Meminfo before = {{"FileHugePages", 0}, {"Unevictable", 0}, {"Shmem", 0}, {"Cached", 0}};
  Meminfo after = {{"FileHugePages", 0}, {"Unevictable", 0}, {"Shmem", 0}, {"Cached", 1024 * MiB}};
  auto g = choose_growing_field(before, after, 256 * MiB);
  EXPECT_EQ(g.field, "");
  EXPECT_NE(g.reason.find("no meminfo field grew with guest_memfd memory"), std::string::npos) << g.reason;
  // Too little is not it either; an absent field is said to be absent.
  after = {{"Unevictable", 100 * MiB}};
  g = choose_growing_field(before, after, 256 * MiB);
  EXPECT_EQ(g.field, "");
  EXPECT_NE(g.how.find("FileHugePages absent"), std::string::npos) << g.how;
}

// The live calibration on this host's kernel (a default VM's guest_memfd
// where KVM offers one): the allocation must show up in some field.
TEST(GmemMeminfoField, LiveCalibrationFindsAField) {
  try {
    Kvm kvm = Kvm::open();
    if (kvm.check_extension(KVM_CAP_GUEST_MEMFD) <= 0) GTEST_SKIP() << "no guest_memfd";
    Vm vm = Vm::create(kvm, KVM_X86_DEFAULT_VM);
    vm.create_guest_memfd(4096, 0);
  } catch (const KvmError& e) {
    GTEST_SKIP() << "no guest_memfd on a default VM here: " << e.what();
  }
  auto g = calibrate_guest_memfd_field(KVM_X86_DEFAULT_VM, 64 * MiB);
  EXPECT_FALSE(g.field.empty()) << g.reason;
  RecordProperty("calibration", g.how);
}
