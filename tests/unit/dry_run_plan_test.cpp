// The pure pieces of `run --dry-run`: a host read back from its probe JSON
// (tests/data/hosts/*.json, made up and marked so), the guest argv of a plan
// with its placeholders, the rendering, and that every document preset
// has a plan.
#include <gtest/gtest.h>

#include <fstream>

#include "hostlib/kvm/kvm_probe.h"
#include "hostlib/kvm/kvm_uapi.h"
#include "hostlib/kvm/private_vm.h"
#include "suites/framework/plan.h"
#include "suites/framework/param_check.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

using namespace kvmbench;
using namespace kvmbench::suites;

namespace {

nlohmann::json host_file(const std::string& name) {
  std::ifstream in(std::string(KVMBENCH_TEST_DATA) + "/hosts/" + name);
  return nlohmann::json::parse(in);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

RunContext context(const HostCaps& caps) {
  return RunContext(caps, {}, 1, "RUN_DIR", [](const Sample&) { FAIL() << "a plan emitted a sample"; });
}

std::string all_lines(const Plan& plan) {
  std::string out;
  for (const auto& s : plan.sections())
    for (const auto& l : s.lines) out += "[" + s.kind + "] " + s.title + ": " + l + "\n";
  return out;
}

}  // namespace

TEST(DryRunPlan, EveryDocumentPresetHasAPlan) {
  for (const auto& s : registry()) {
    const Preset* doc = s.find_preset("document");
    ASSERT_NE(doc, nullptr) << s.name;
    EXPECT_TRUE(static_cast<bool>(doc->plan)) << s.name;
  }
}

TEST(DryRunPlan, AnSnpHostReadBackFromItsProbe) {
  const nlohmann::json j = host_file("snp.json");
  ASSERT_TRUE(j.value("_note", "").starts_with("MADE UP"));
  HostCaps caps = host_caps_from_probe_json(j);
  EXPECT_TRUE(caps.kvm.present);
  EXPECT_TRUE(caps.kvm.runs_guests);
  EXPECT_TRUE(caps.has_feature("sev_snp"));
  EXPECT_TRUE(caps.has_feature("rmpopt"));
  EXPECT_EQ(caps.qemu_path, "/usr/bin/qemu-system-x86_64");
  EXPECT_TRUE(caps.qemu_has_accel("kvm"));
  ASSERT_TRUE(caps.qemu_objects);
  EXPECT_NE(std::find(caps.qemu_objects->begin(), caps.qemu_objects->end(), "sev-snp-guest"), caps.qemu_objects->end());
  EXPECT_EQ(caps.memory_bytes, 2199023255552ULL);
  EXPECT_EQ(caps.online_cpus, 384u);
  ASSERT_TRUE(caps.confidential.sev_bits);
  EXPECT_EQ(caps.confidential.sev_bits->cbitpos, 51u);
  EXPECT_EQ(caps.confidential.rmpopt.state, host::RmpoptBootState::State::enabled);
  EXPECT_EQ(caps.confidential.flushbyasid, "yes");
  EXPECT_EQ(caps.confidential.rmpopt.not_optimized_above, 0x20000000000ULL);
  // Booted with the series' default vm_memory_attributes=Y: the document
  // finds no guest_memfd ioctl; the host preset keeps the VM-wide one.
  auto c = host::choose_private_vm_type(host::vm_type_offer_from(caps.kvm), host::kDocumentVmTypeOrder, std::nullopt,
                                        host::ConversionNeed::arch_make_shared);
  EXPECT_LT(c.type, 0);
  auto h = host::choose_private_vm_type(host::vm_type_offer_from(caps.kvm), host::kHostVmTypeOrder);
  EXPECT_EQ(h.type, KVM_X86_SW_PROTECTED_VM);
  EXPECT_EQ(h.conversion, host::ConversionIoctl::vm_attributes);
  // Booted with =0: the document's SNP VM through the guest_memfd ioctl.
  HostCaps in_place = host_caps_from_probe_json(host_file("snp-vmattr0.json"));
  auto d = host::choose_private_vm_type(host::vm_type_offer_from(in_place.kvm), host::kDocumentVmTypeOrder,
                                        std::nullopt, host::ConversionNeed::arch_make_shared);
  EXPECT_EQ(d.type, KVM_X86_SNP_VM);
  EXPECT_EQ(d.conversion, host::ConversionIoctl::gmem_attributes2);
}

// Which boot each preset needs, from the kvm module's parameter.
TEST(DryRunPlan, BootsFromTheKvmModulesParameter) {
  const HostCaps y = host_caps_from_probe_json(host_file("snp.json"));
  const HostCaps n = host_caps_from_probe_json(host_file("snp-vmattr0.json"));
  const HostCaps plain = host_caps_from_probe_json(host_file("plain.json"));
  const Suite* make_shared = find_suite("make_shared");
  const Suite* rmpopt = find_suite("rmpopt");
  const Suite* directmap = find_suite("directmap");
  ASSERT_TRUE(make_shared && rmpopt && directmap);
  const Preset& ms = *make_shared->find_preset("document");
  const Preset& rm = *rmpopt->find_preset("document");
  const Preset& dm = *directmap->find_preset("document");
  EXPECT_EQ(boot_need(ms, y, {}).setting, "kvm.vm_memory_attributes=0");
  EXPECT_FALSE(boot_need(ms, y, {}).this_boot);
  EXPECT_TRUE(boot_need(ms, n, {}).this_boot);
  EXPECT_EQ(boot_need(rm, n, {}).setting, "kvm.vm_memory_attributes=1");
  EXPECT_FALSE(boot_need(rm, n, {}).this_boot);
  EXPECT_TRUE(boot_need(rm, y, {}).this_boot);
  // directmap only with its SNP guests.
  EXPECT_EQ(boot_need(dm, n, {}).setting, "");
  EXPECT_FALSE(boot_need(dm, n, {{"confidential", "snp"}}).this_boot);
  // A kernel without the series: any boot.
  EXPECT_EQ(boot_need(ms, plain, {}).setting, "");
  EXPECT_TRUE(boot_need(rm, plain, {}).this_boot);
}

TEST(DryRunPlan, ATdxHostWithTheVmIoctlOffStillConverts) {
  HostCaps caps = host_caps_from_probe_json(host_file("tdx.json"));
  EXPECT_FALSE(caps.confidential.sev_bits);
  auto c = host::choose_private_vm_type(host::vm_type_offer_from(caps.kvm), host::kHostVmTypeOrder);
  EXPECT_EQ(c.type, KVM_X86_SW_PROTECTED_VM);
  EXPECT_EQ(c.conversion, host::ConversionIoctl::gmem_attributes2);  // cap 0 on the VM fd
}

TEST(DryRunPlan, KvmStatusSurvivesTheJsonRoundTrip) {
  host::KvmStatus s;
  s.present = true;
  s.module = "kvm_amd";
  s.runs_guests = true;
  s.vm_types = {"default", "snp"};
  s.vm_types_mask = (1ULL << 0) | (1ULL << KVM_X86_SNP_VM);
  s.guest_memfd = true;
  s.private_memory_vm_types = {"snp"};
  s.memory_attributes_by_vm_type = {{"default", 0}, {"snp", 8}};
  s.gmem_attributes2_vm_types = {"snp"};
  s.gmem_attributes2_notes = {"default: ENOTTY"};
  s.sev_device_error = "";
  s.pre_fault_memory = true;
  host::KvmStatus back = host::kvm_status_from_json(host::to_json(s));
  EXPECT_EQ(back.present, s.present);
  EXPECT_EQ(back.module, s.module);
  EXPECT_EQ(back.vm_types, s.vm_types);
  EXPECT_EQ(back.vm_types_mask, s.vm_types_mask);
  EXPECT_EQ(back.memory_attributes_by_vm_type, s.memory_attributes_by_vm_type);
  EXPECT_EQ(back.gmem_attributes2_vm_types, s.gmem_attributes2_vm_types);
  EXPECT_EQ(back.gmem_attributes2_notes, s.gmem_attributes2_notes);
  EXPECT_EQ(back.sev_device_error, "");
  EXPECT_TRUE(back.pre_fault_memory);
  // An older probe says nothing about /dev/sev: that is said, not assumed.
  host::KvmStatus old = host::kvm_status_from_json({{"present", true}, {"vm_types", {"default", "snp"}}});
  EXPECT_EQ(old.vm_types_mask, (1ULL << 0) | (1ULL << KVM_X86_SNP_VM));
  EXPECT_TRUE(has(old.sev_device_error, "does not say whether /dev/sev can be opened"));
  EXPECT_THROW(host::kvm_status_from_json({{"vm_types", {"default"}}}), std::invalid_argument);  // no "present"
  EXPECT_THROW(host::kvm_status_from_json({{"present", true}, {"vm_types_mask", "31"}}), std::invalid_argument);
}

TEST(DryRunPlan, GuestArgvPlaceholdersAndRefusals) {
  HostCaps caps = host_caps_from_probe_json(host_file("snp.json"));
  caps.confidential.sev_bits.reset();  // a host whose CPU reports no C-bit
  caps.qemu_objects.reset();           // and whose QEMU was not asked
  RunContext ctx = context(caps);
  host::GuestSpec spec;
  spec.workload = "tcp_rr";
  spec.confidential = host::Confidential::sev_snp;
  Plan plan;
  plan_guest(plan, ctx, spec, "g");
  const std::string text = all_lines(plan);
  EXPECT_TRUE(has(text, "sev-snp-guest,id=sev0,cbitpos=HOST_CBITPOS,reduced-phys-bits=1")) << text;
  EXPECT_TRUE(has(text, "-bios FIRMWARE")) << text;
  EXPECT_TRUE(has(text, "hostfwd=tcp:127.0.0.1:PORT-:5201")) << text;
  EXPECT_TRUE(has(text, "-chardev file,id=con0,path=RUN_DIR/raw/g.it0.console.log")) << text;
  EXPECT_TRUE(has(text, "[skip] g: parameter firmware is not given")) << text;
  EXPECT_TRUE(has(text, "[skip] g: the CPU reports no SEV C-bit position")) << text;
  EXPECT_TRUE(has(text, "whether QEMU has the 'sev-snp-guest' object is not known here")) << text;
  // A guest the launcher would refuse to build is a skip, not an argv.
  spec.vcpus = 0;
  Plan bad;
  plan_guest(bad, ctx, spec, "g0");
  ASSERT_EQ(bad.sections().size(), 2u);  // the note on QEMU's objects, then the skip
  EXPECT_EQ(bad.sections().back().kind, "skip");
  EXPECT_TRUE(has(bad.sections().back().lines[0], "vCPUs must be 1..1024")) << bad.sections().back().lines[0];
}

TEST(DryRunPlan, RenderingPairsOptionsWithValues) {
  Plan plan;
  plan.check("");
  plan.guest("g", {"/usr/bin/qemu", "-nodefaults", "-machine", "q35", "-S"});
  plan.ioctls("build", {"KVM_CREATE_VM(snp)", "KVM_CREATE_VCPU(0)"});
  plan.skip("part", "why");
  Preset p;
  p.name = "document";
  const std::string out = render_plan("make_shared", p, plan, {{"sizes", "4K"}, {"vm-type", ""}}, 2);
  EXPECT_EQ(out,
            "== make_shared / document [source: hardware], 2 repetitions ==\n"
            "parameters: sizes=4K vm-type=''\n"
            "would run on this host\n"
            "[guest] g:\n"
            "    /usr/bin/qemu\n"
            "    -nodefaults\n"
            "    -machine q35\n"
            "    -S\n"
            "[ioctls] build:\n"
            "   1. KVM_CREATE_VM(snp)\n"
            "   2. KVM_CREATE_VCPU(0)\n"
            "[skip] part: why\n");
  EXPECT_TRUE(plan.would_run());
  plan.cannot_run("no");
  EXPECT_FALSE(plan.would_run());
}

TEST(DryRunPlan, ThisHostWithoutIoctlsSaysKvmWasNotProbed) {
  HostCaps caps = probe_host_caps_without_ioctls();
  EXPECT_FALSE(caps.kvm.present);
  EXPECT_TRUE(has(caps.kvm.reason, "a dry run makes no ioctl")) << caps.kvm.reason;
  EXPECT_TRUE(has(caps.kvm.reason, "--host")) << caps.kvm.reason;
  EXPECT_TRUE(caps.metadata.contains("confidential"));
}
