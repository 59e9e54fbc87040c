// Which VM type make_shared uses (hostlib/kvm/private_vm.h), given injected
// capabilities: the order per preset, forcing one with vm-type, and the
// reason given for every type passed over. Also the document preset's
// "cannot run here" built from a probe result.
#include <gtest/gtest.h>

#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/private_vm.h"
#include "suites/make_shared/measure.h"
#include "suites/framework/suite.h"

using namespace kvmbench;
using namespace kvmbench::host;
using namespace kvmbench::suites::make_shared;

namespace {

constexpr std::uint64_t bit(std::uint32_t t) { return 1ULL << t; }

VmTypeOffer offer(std::uint64_t offered, std::uint64_t priv) {
  VmTypeOffer o;
  o.offered_mask = offered;
  o.private_mask = priv;
  return o;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(MakeSharedVmType, DefaultOnlyHostHasNoTypeAndSaysWhyForEach) {
  auto c = choose_private_vm_type(offer(bit(KVM_X86_DEFAULT_VM), 0), kDocumentVmTypeOrder);
  EXPECT_EQ(c.type, -1);
  EXPECT_EQ(c.name(), "");
  ASSERT_EQ(c.unavailable.size(), 2u);
  EXPECT_EQ(c.unavailable[0], "snp: not offered by KVM (KVM_CAP_VM_TYPES: default)");
  EXPECT_EQ(c.unavailable[1], "tdx: not offered by KVM (KVM_CAP_VM_TYPES: default)");
  EXPECT_EQ(c.reason(), c.unavailable[0] + "; " + c.unavailable[1]);
  // A zero mask (no KVM_CAP_VM_TYPES) means the default type only.
  EXPECT_EQ(choose_private_vm_type(offer(0, 0), kDocumentVmTypeOrder).reason(), c.reason());
}

TEST(MakeSharedVmType, HostOrderPrefersSoftwareProtected) {
  const auto all = bit(KVM_X86_DEFAULT_VM) | bit(KVM_X86_SW_PROTECTED_VM) | bit(KVM_X86_SNP_VM);
  const auto priv = bit(KVM_X86_SW_PROTECTED_VM) | bit(KVM_X86_SNP_VM);
  auto host = choose_private_vm_type(offer(all, priv), kHostVmTypeOrder);
  EXPECT_EQ(host.type, KVM_X86_SW_PROTECTED_VM);
  EXPECT_TRUE(host.unavailable.empty());
  // The document never takes sw_protected by itself.
  auto doc = choose_private_vm_type(offer(all, priv), kDocumentVmTypeOrder);
  EXPECT_EQ(doc.type, KVM_X86_SNP_VM);
  auto doc_sw_only = choose_private_vm_type(offer(all & ~bit(KVM_X86_SNP_VM), bit(KVM_X86_SW_PROTECTED_VM)),
                                            kDocumentVmTypeOrder);
  EXPECT_EQ(doc_sw_only.type, -1);
}

TEST(MakeSharedVmType, SnpBeforeTdxAndForcingPicksTheOther) {
  const auto both = bit(KVM_X86_SNP_VM) | bit(KVM_X86_TDX_VM);
  EXPECT_EQ(choose_private_vm_type(offer(both, both), kDocumentVmTypeOrder).type, KVM_X86_SNP_VM);
  EXPECT_EQ(choose_private_vm_type(offer(both, both), kDocumentVmTypeOrder, KVM_X86_TDX_VM).type, KVM_X86_TDX_VM);
  // Forcing a type outside the order is allowed, and checked like any other.
  auto forced_sw = choose_private_vm_type(offer(both, both), kDocumentVmTypeOrder, KVM_X86_SW_PROTECTED_VM);
  EXPECT_EQ(forced_sw.type, -1);
  ASSERT_EQ(forced_sw.unavailable.size(), 1u);
  EXPECT_EQ(forced_sw.unavailable[0], "sw_protected: not offered by KVM (KVM_CAP_VM_TYPES: snp, tdx)");
}

TEST(MakeSharedVmType, SnpNeedsSevDeviceThenTdxIsTaken) {
  const auto both = bit(KVM_X86_SNP_VM) | bit(KVM_X86_TDX_VM);
  auto o = offer(both, both);
  o.sev_device_error = "/dev/sev cannot be opened: ENOENT (No such file or directory)";
  auto c = choose_private_vm_type(o, kDocumentVmTypeOrder);
  EXPECT_EQ(c.type, KVM_X86_TDX_VM);
  ASSERT_EQ(c.unavailable.size(), 1u);
  EXPECT_EQ(c.unavailable[0],
            "snp: /dev/sev cannot be opened: ENOENT (No such file or directory) (KVM_SEV_INIT2 and "
            "KVM_SEV_SNP_LAUNCH_START need it)");
  // The device matters for SNP only.
  EXPECT_EQ(choose_private_vm_type(o, kDocumentVmTypeOrder, KVM_X86_TDX_VM).type, KVM_X86_TDX_VM);
}

TEST(MakeSharedVmType, RefusedAndNonPrivateTypesAreExplained) {
  auto o = offer(bit(KVM_X86_SNP_VM) | bit(KVM_X86_TDX_VM), 0);
  o.create_errors = {"snp: KVM_CREATE_VM(type=4 snp) failed: EINVAL (Invalid argument)"};
  auto c = choose_private_vm_type(o, kDocumentVmTypeOrder);
  EXPECT_EQ(c.type, -1);
  ASSERT_EQ(c.unavailable.size(), 2u);
  EXPECT_EQ(c.unavailable[0], "snp: KVM_CREATE_VM refused it: KVM_CREATE_VM(type=4 snp) failed: EINVAL (Invalid argument)");
  EXPECT_EQ(c.unavailable[1],
            "tdx: no conversion ioctl: the VM-wide KVM_SET_MEMORY_ATTRIBUTES does not take PRIVATE on a tdx VM "
            "(KVM_CAP_MEMORY_ATTRIBUTES on its fd = 0x0: absent or turned off), and its guest_memfd does not "
            "implement KVM_SET_MEMORY_ATTRIBUTES2 (not probed)");
  // The default type converts nothing.
  auto d = choose_private_vm_type(offer(1, 0), kHostVmTypeOrder, KVM_X86_DEFAULT_VM);
  EXPECT_EQ(d.type, -1);
  EXPECT_TRUE(mentions(d.reason(), "default: no conversion ioctl")) << d.reason();
}

TEST(MakeSharedVmType, ParsesNamesAndRejectsUnknownOnes) {
  EXPECT_FALSE(parse_vm_type("").has_value());
  EXPECT_EQ(parse_vm_type("sw_protected"), KVM_X86_SW_PROTECTED_VM);
  EXPECT_EQ(parse_vm_type("sw-protected"), KVM_X86_SW_PROTECTED_VM);
  EXPECT_EQ(parse_vm_type("snp"), KVM_X86_SNP_VM);
  EXPECT_EQ(parse_vm_type("tdx"), KVM_X86_TDX_VM);
  try {
    parse_vm_type("sev-snp");
    FAIL() << "an unknown type was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(mentions(e.what(), "'sev-snp'")) << e.what();
    EXPECT_TRUE(mentions(e.what(), "sw_protected, sev, sev_es, snp, tdx")) << e.what();
  }
}

TEST(MakeSharedVmType, OfferFromTheProbe) {
  KvmStatus s;
  s.vm_types_mask = bit(KVM_X86_DEFAULT_VM) | bit(KVM_X86_SW_PROTECTED_VM) | bit(KVM_X86_TDX_VM);
  s.private_memory_vm_types = {"sw_protected", "tdx"};
  s.vm_type_errors = {"tdx: boom"};
  s.private_memory_vm_types.push_back("type9");  // a type kvmbench has no name for
  s.vm_types_mask |= bit(9);
  auto o = vm_type_offer_from(s);
  EXPECT_EQ(o.offered_mask, s.vm_types_mask);
  EXPECT_EQ(o.private_mask, bit(KVM_X86_SW_PROTECTED_VM) | bit(KVM_X86_TDX_VM) | bit(9));
  EXPECT_EQ(o.create_errors, s.vm_type_errors);
  EXPECT_TRUE(o.sev_device_error.empty());  // SNP is not offered: /dev/sev is not asked
  auto c = choose_private_vm_type(o, kDocumentVmTypeOrder);
  EXPECT_EQ(c.type, -1);
  EXPECT_EQ(c.unavailable.back(), "tdx: KVM_CREATE_VM refused it: boom");
}

// The document preset's reason, from an injected probe result.
TEST(MakeSharedVmType, DocumentPresetSaysWhyEachTypeIsUnavailable) {
  const suites::Suite* s = suites::find_suite("make_shared");
  ASSERT_NE(s, nullptr);
  const suites::Preset* doc = s->find_preset("document");
  ASSERT_NE(doc, nullptr);
  suites::HostCaps caps;
  caps.kvm.present = true;
  caps.kvm.guest_memfd = true;
  caps.kvm.vm_types_mask = bit(KVM_X86_DEFAULT_VM) | bit(KVM_X86_SW_PROTECTED_VM);
  caps.kvm.private_memory_vm_types = {"sw_protected"};
  std::string why = doc->unsupported_reason(caps);
  EXPECT_EQ(why,
            "needs an SNP or TDX VM with private memory (tried snp, then tdx): snp: not offered by KVM "
            "(KVM_CAP_VM_TYPES: default, sw_protected); tdx: not offered by KVM (KVM_CAP_VM_TYPES: default, "
            "sw_protected)");
  caps.kvm.vm_types_mask |= bit(KVM_X86_TDX_VM);
  caps.kvm.private_memory_vm_types.push_back("tdx");
  // The VM-wide ioctl alone never reaches the arch make_shared callback
  // (issue 14 item 1): the document says so instead of running.
  const std::string vm_wide_only = doc->unsupported_reason(caps);
  EXPECT_TRUE(mentions(vm_wide_only, "tdx: its guest_memfd does not implement KVM_SET_MEMORY_ATTRIBUTES2"))
      << vm_wide_only;
  EXPECT_TRUE(mentions(vm_wide_only, "a conversion through the VM-wide ioctl never calls it")) << vm_wide_only;
  caps.kvm.gmem_attributes2_vm_types = {"tdx"};
  EXPECT_EQ(doc->unsupported_reason(caps), "");
  // With the VM-wide ioctl turned off (cap 0), the guest_memfd one still
  // serves: not "no private memory".
  caps.kvm.private_memory_vm_types = {"sw_protected"};
  caps.kvm.memory_attributes_by_vm_type = {{"tdx", 0}};
  EXPECT_EQ(doc->unsupported_reason(caps), "");
  caps.kvm.guest_memfd = false;
  EXPECT_TRUE(mentions(doc->unsupported_reason(caps), "guest_memfd")) << doc->unsupported_reason(caps);
  // The host preset runs wherever guest_memfd does (conversions skip inside).
  caps.kvm.guest_memfd = true;
  EXPECT_EQ(s->find_preset("host")->unsupported_reason(caps), "");
}

// Live: this host's answer is either a type or a reason naming each type.
TEST(MakeSharedVmType, LiveChoiceIsATypeOrAReason) {
  try {
    Kvm::open();
  } catch (const KvmError&) {
    GTEST_SKIP() << "/dev/kvm cannot be opened here";
  }
  const VmTypeChoice choice = make_shared_vm_choice("", kDocumentVmTypeOrder, ConversionNeed::arch_make_shared);
  if (choice.type >= 0) {
    EXPECT_EQ(choice.conversion, ConversionIoctl::gmem_attributes2);
    return;
  }
  const std::string why = no_vm_type_reason(choice, "", kDocumentVmTypeOrder);
  EXPECT_TRUE(mentions(why, "(tried snp, tdx)")) << why;
  EXPECT_TRUE(mentions(why, "snp: ")) << why;
  EXPECT_TRUE(mentions(why, "tdx: ")) << why;
}

// `kvmbench probe` and meta.json say, per type with private memory, whether
// it is usable here and why not.
TEST(MakeSharedVmType, ProbeJsonNamesEachPrivateType) {
  host::KvmStatus status;  // as on a host whose KVM offers the default type only
  const nlohmann::json j = host::private_vm_types_json(status);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  const char* order[] = {"sw_protected", "snp", "tdx"};  // the host preset's order
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j[i]["type"], order[i]) << j.dump();
    EXPECT_NE(j[i]["state"].get<std::string>().find("not offered by KVM"), std::string::npos) << j.dump();
  }
}
